import { describe, expect, it } from 'vitest';
import { encodeTextInput } from '../../src/drivers/terminal/input.js';
import { InputGate } from '../../src/drivers/terminal/input-gate.js';

describe('text input encoding', () => {
  it('sends one line as typed, with Enter as a separate write', () => {
    expect(encodeTextInput('hello', { bracketedPaste: true, submit: true })).toEqual({
      body: 'hello',
      submit: '\r',
    });
  });

  it('wraps multi-line text in a bracketed paste when the application enabled it', () => {
    const { body } = encodeTextInput('a\r\nb\nc', { bracketedPaste: true, submit: true });
    expect(body).toBe('\x1b[200~a\nb\nc\x1b[201~');
  });

  it('never lets the text end the paste early: escape bytes are removed, so no marker can be rebuilt', () => {
    const { body } = encodeTextInput('x\x1b[201~rm -rf /\ny', { bracketedPaste: true, submit: false });
    expect(body).toBe('\x1b[200~x[201~rm -rf /\ny\x1b[201~');
    // Removing the marker once would rebuild it from the pieces around it; removing ESC cannot.
    const nested = encodeTextInput('a\x1b[20\x1b[201~1~\nb', { bracketedPaste: true, submit: false }).body;
    expect(nested.slice(6, -6)).not.toContain('\x1b');
  });

  it('removes Ctrl-C, Ctrl-D, Ctrl-Z and OSC strings', () => {
    const { body } = encodeTextInput('a\x03b\x04c\x1ad\x1b]0;t\x07e', {
      bracketedPaste: false,
      submit: false,
    });
    expect(body).toBe('abcd]0;te');
  });

  it('sends a tab inside a paste, where it is a character and not a completion key', () => {
    expect(encodeTextInput('a\tb', { bracketedPaste: true, submit: true }).body).toBe(
      '\x1b[200~a\tb\x1b[201~',
    );
  });

  it('refuses lines for a program that reads one line at a time, unless a person sent them as lines', () => {
    expect(() => encodeTextInput('a\nb', { bracketedPaste: false, submit: false })).toThrow(
      /one line at a time/,
    );
    expect(encodeTextInput('a\nb', { bracketedPaste: false, submit: false, lineByLine: true })).toEqual({
      body: 'a\rb',
      submit: '',
    });
  });
});

describe('input gate', () => {
  it('passes user input straight through when no injection runs', () => {
    const written: string[] = [];
    const gate = new InputGate((d) => void written.push(String(d)));
    gate.user('ab');
    expect(written).toEqual(['ab']);
  });

  it('holds user keystrokes during an injection and delivers them after, in order', async () => {
    const written: string[] = [];
    const gate = new InputGate((d) => void written.push(String(d)));
    let release!: () => void;
    const injected = gate.exclusive(async () => {
      written.push('INJECT');
      await new Promise<void>((resolve) => (release = resolve));
    });
    await Promise.resolve();
    await Promise.resolve();
    gate.user('x');
    gate.user('y');
    expect(written).toEqual(['INJECT']);
    release();
    await injected;
    expect(written).toEqual(['INJECT', 'x', 'y']);
  });

  it('runs injections one at a time in call order', async () => {
    const log: string[] = [];
    const gate = new InputGate(() => {});
    const slow = gate.exclusive(async () => {
      log.push('a-start');
      await new Promise((r) => setTimeout(r, 5));
      log.push('a-end');
    });
    const fast = gate.exclusive(async () => void log.push('b'));
    await Promise.all([slow, fast]);
    expect(log).toEqual(['a-start', 'a-end', 'b']);
  });

  it('can be paused by hand (stdin relay pause) and still delivers on resume', () => {
    const written: string[] = [];
    const gate = new InputGate((d) => void written.push(String(d)));
    gate.pause();
    gate.user('k');
    expect(gate.paused).toBe(true);
    expect(written).toEqual([]);
    gate.resume();
    expect(written).toEqual(['k']);
  });

  it('reopens the gate when an injection fails', async () => {
    const written: string[] = [];
    const gate = new InputGate((d) => void written.push(String(d)));
    await expect(gate.exclusive(async () => Promise.reject(new Error('pty closed')))).rejects.toThrow(
      'pty closed',
    );
    gate.user('z');
    expect(written).toEqual(['z']);
  });

  it('keys typed as the agent exits go nowhere, and fail nothing (the session host lived on)', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const gate = new InputGate(() => Promise.reject(new Error('the process has exited')));
      gate.user('\x04');
      await gate.exclusive(async () => gate.user('held, then flushed'));
      const throwing = new InputGate(() => {
        throw new Error('the process has exited');
      });
      expect(() => throwing.user('x')).not.toThrow();
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
