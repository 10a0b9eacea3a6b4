import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { HostTerminal } from '../../src/cli/host-terminal.js';
import { attachTerminal } from '../../src/cli/terminal-attachment.js';
import type { AgentEventListener, ExitInfo } from '../../src/core/events.js';
import { ScreenModel } from '../../src/drivers/terminal/screen.js';
import type { TerminalSession } from '../../src/drivers/terminal/terminal-session.js';

/** A terminal session as attachTerminal uses it: output events, pause/resume counted, an exit to end it. */
function terminalStandIn() {
  let listener: AgentEventListener = () => undefined;
  let exit!: (info: ExitInfo) => void;
  const counts = { pauses: 0, resumes: 0 };
  const terminal = {
    on: (l: AgentEventListener) => ((listener = l), () => (listener = () => undefined)),
    pty: { pause: () => counts.pauses++, resume: () => counts.resumes++ },
    exited: new Promise<ExitInfo>((resolve) => (exit = resolve)),
    screen: new ScreenModel({ cols: 80, rows: 24 }),
    userInput: () => undefined,
    resize: () => undefined,
    interrupt: () => undefined,
  } as unknown as TerminalSession;
  return {
    terminal,
    counts,
    emit: (text: string) => listener({ type: 'output', data: Buffer.from(text) }),
    exit: () => exit({ exitCode: 0, signal: null }),
  };
}

describe('a terminal attached to a session', () => {
  it('waits for one drain of a slow terminal however much output is still on its way after the pause', async () => {
    const written: string[] = [];
    let release: (() => void) | null = null;
    // A terminal that takes one write at a time, slowly: everything after the first is buffered.
    const output = new Writable({
      highWaterMark: 16,
      write(chunk: Buffer, _encoding, done) {
        written.push(chunk.toString());
        release = done;
      },
    }) as unknown as NodeJS.WriteStream;
    const host = new HostTerminal(new PassThrough() as unknown as NodeJS.ReadStream, output);
    const { terminal, counts, emit, exit } = terminalStandIn();
    const attached = attachTerminal(host, terminal, { detachKey: null, stopOnHangup: false, stop: () => {} });
    // Output already read from the session host keeps coming after the pause: 50 writes the terminal refuses.
    for (let i = 0; i < 50; i++) emit(`line ${i} of a burst\n`);
    expect(counts.pauses).toBe(1);
    expect(output.listenerCount('drain')).toBeLessThanOrEqual(2); // ours, and the drain() wait at the end
    // The terminal catches up: one resume, once everything was written.
    while (release) {
      const done = release as () => void;
      release = null;
      done();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(counts.resumes).toBe(1);
    expect(written.join('')).toBe(Array.from({ length: 50 }, (_, i) => `line ${i} of a burst\n`).join(''));
    exit();
    expect(await attached).toEqual({ how: 'exited', exit: { exitCode: 0, signal: null } });
  });
});
