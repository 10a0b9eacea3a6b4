import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ScreenState } from '../../src/drivers/terminal/screen.js';
import { listen, startTestHost, type TestHost } from '../support/test-host.js';
import { processExists, waitFor } from '../support/wait.js';

// Issue 14: a terminal's output is parsed once, by its session host, not again by each client; and `run`'s
// host writes the agent's output to run's terminal itself, so the bytes never cross a second process. A
// client that reads the host's screen gets it when it settles (what it shows, and how much output that is)
// and hears when output comes after; it gets the output itself only when it asks (someone watches it there).

let dir: string;
const hosts: TestHost[] = [];
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-screens-'));
});
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.end().catch(() => undefined)));
  rmSync(dir, { recursive: true, force: true });
});

async function host(script: string, options: Parameters<typeof startTestHost>[2] = {}): Promise<TestHost> {
  const started = await startTestHost(dir, script, options);
  hosts.push(started);
  return started;
}

type Frame = { type: string; state?: ScreenState; outputAt?: number };

describe('a session host that reads the screen for its clients', () => {
  it('says what the screen shows when it settles, and that output came after; no output over the socket unless asked', async () => {
    const started = await host('echo ready; while read -r line; do echo "got [$line]"; done');
    const connection = await started.connect({ control: 'if-free', screens: true, output: false });
    expect(connection.screens).toBe(true);
    const seen = listen(connection);
    const settled = () => seen.frames.filter((f: Frame) => f.type === 'settled') as Frame[];
    await waitFor('the first settle', () => settled().some((f) => f.state!.lines.includes('ready')));
    const first = settled().at(-1)!.state!;
    expect(first.outputAt).toBe(Buffer.byteLength('ready\r\n'));
    expect(first.cursor).toEqual({ x: 0, y: 1 });
    const before = seen.frames.length;
    connection.sendInput('hello\r');
    await waitFor('the answer on the screen', () =>
      settled().some((f) => f.state!.lines.includes('got [hello]')),
    );
    const active = seen.frames.slice(before).filter((f: Frame) => f.type === 'active') as Frame[];
    // Said once the output resumed (the echo of the keys), with the output count then.
    expect(active.length).toBeGreaterThanOrEqual(1);
    expect(active[0]!.outputAt).toBeGreaterThan(first.outputAt);
    const last = settled().at(-1)!.state!;
    expect(last.outputAt).toBe(Buffer.byteLength('ready\r\nhello\r\ngot [hello]\r\n'));
    expect(seen.output()).toBe('');
    // The screen caught up on request: the same as the last settle, nothing new was written.
    const reply = await connection.request({ type: 'screen' });
    expect((reply.state as ScreenState).outputAt).toBe(last.outputAt);
    // Asked for, the output comes from the screen it is shown on, every byte after it once.
    const follow = await connection.request({ type: 'output', on: true });
    expect(String(follow.screen)).toContain('got [hello]');
    connection.sendInput('again\r');
    await waitFor('the output', () => seen.output().includes('got [again]'));
    expect(seen.output()).toBe('again\r\ngot [again]\r\n');
    await connection.request({ type: 'output', on: false });
    connection.sendInput('quiet\r');
    await waitFor('the next settle', () => settled().some((f) => f.state!.lines.includes('got [quiet]')));
    expect(seen.output()).not.toContain('quiet');
  });

  it('shows a client taking control later the screen as it stands, settled or not', async () => {
    const started = await host('printf "Continue? (y/n) "; read -r answer; echo "answer [$answer]"');
    const first = await started.connect({ control: 'if-free', screens: true, output: false });
    const seenFirst = listen(first);
    await waitFor('the question settled', () =>
      seenFirst.frames.some((f: Frame) => f.type === 'settled' && f.state!.lines[0]!.includes('Continue?')),
    );
    const next = await started.connect({ control: 'wait', screens: true, output: false });
    const seenNext = listen(next);
    first.send({ type: 'release' });
    first.close();
    await waitFor('control', () => seenNext.frames.find((f) => f.type === 'control'));
    const control = seenNext.frames.find((f) => f.type === 'control') as unknown as {
      state: ScreenState;
      settled: boolean;
    };
    expect(control.settled).toBe(true);
    expect(control.state.lines[0]).toContain('Continue? (y/n)');
    expect(seenNext.output()).toBe('');
  });

  it('still sends a client of the first protocol (no `screens`) its output to parse, as before', async () => {
    const started = await host('echo one; echo two');
    const connection = await started.connect({ control: 'if-free' });
    expect(connection.screens).toBe(false);
    const seen = listen(connection);
    await waitFor('the exit', () => seen.frames.find((f) => f.type === 'exit'));
    expect(seen.output()).toBe('one\r\ntwo\r\n');
    expect(seen.frames.filter((f) => f.type === 'settled' || f.type === 'active')).toEqual([]);
  });
});

describe("a session host started with its spawner's terminal", () => {
  /** A file standing in for `run`'s terminal: the host gets its descriptor, as it would get run's stdout. */
  function terminalFile(): { fd: number; read: () => string; close: () => void } {
    const file = path.join(dir, 'terminal.out');
    writeFileSync(file, '');
    const fd = openSync(file, 'a');
    return { fd, read: () => readFileSync(file, 'utf8'), close: () => closeSync(fd) };
  }

  it('writes the output there once told to, none over the socket, and all of it before the exit', async () => {
    const terminal = terminalFile();
    const expected = path.join(dir, 'expected.txt');
    const started = await host(`echo early; seq 1 30000 | tee -a ${expected}; exit 3`, {
      terminal: true,
      terminalFd: terminal.fd,
    });
    terminal.close();
    const connection = await started.connect({
      control: 'if-free',
      screens: true,
      output: false,
      direct: true,
    });
    expect(connection.welcome.direct).toBe(true);
    const seen = listen(connection);
    // Held until the spawner has said what it says first (its banner) and shows the session.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(terminal.read()).toBe('');
    await connection.request({ type: 'terminal', on: true });
    await waitFor('the exit', () => seen.frames.find((f) => f.type === 'exit'));
    const wanted = 'early\n' + readFileSync(expected, 'utf8');
    expect(terminal.read().replace(/\r\n/g, '\n')).toBe(wanted);
    expect(seen.output()).toBe('');
  });

  it('stops writing there when its client detaches (after what came before), and when it goes', async () => {
    const terminal = terminalFile();
    const started = await host('while read -r line; do echo "got [$line]"; done', {
      terminal: true,
      terminalFd: terminal.fd,
    });
    terminal.close();
    const connection = await started.connect({
      control: 'if-free',
      screens: true,
      output: false,
      direct: true,
    });
    listen(connection);
    await connection.request({ type: 'terminal', on: true });
    connection.sendInput('one\r');
    await waitFor('the answer written', () => terminal.read().includes('got [one]'));
    await connection.request({ type: 'terminal', on: false });
    const detached = terminal.read();
    connection.sendInput('two\r');
    // Another client sees the session go on; the spawner's terminal gets nothing more, even if it asks for it.
    const other = await started.connect({ direct: true });
    expect(other.welcome.direct).toBeUndefined();
    const seenOther = listen(other);
    await other.request({ type: 'terminal', on: true });
    other.sendInput('three\r');
    await waitFor('the session going on', () => seenOther.output().includes('got [three]'));
    expect(terminal.read()).toBe(detached);
    expect(processExists(started.hostPid)).toBe(true);
    expect(existsSync(started.socket)).toBe(true);
  });

  it('never lets a browser client take the terminal, and lets it go when its client is gone', async () => {
    const terminal = terminalFile();
    const started = await host('while read -r line; do echo "got [$line]"; done', {
      terminal: true,
      terminalFd: terminal.fd,
      session: { webInput: true },
    });
    terminal.close();
    const web = await started.connect({ client: 'web', direct: true, screens: true });
    expect(web.welcome.direct).toBeUndefined();
    const spawner = await started.connect({ control: 'if-free', direct: true, screens: true, output: false });
    expect(spawner.welcome.direct).toBe(true);
    listen(spawner);
    const seenWeb = listen(web);
    await spawner.request({ type: 'terminal', on: true });
    spawner.sendInput('one\r');
    await waitFor('the answer written', () => terminal.read().includes('got [one]'));
    spawner.close();
    web.sendInput('x\r');
    await waitFor('the web seeing its answer', () => seenWeb.output().includes('got [x]'));
    const after = terminal.read();
    web.sendInput('later\r');
    await waitFor('the web seeing it', () => seenWeb.output().includes('got [later]'));
    expect(terminal.read()).toBe(after);
  });
});
