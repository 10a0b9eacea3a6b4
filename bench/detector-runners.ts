/** The two readers of detector-throughput: the bare PTY driver, and the terminal session with its detector. */
import type * as PtyModule from '../src/drivers/terminal/pty-process.js';
import type * as SessionModule from '../src/drivers/terminal/terminal-session.js';
import type * as ShellScreens from '../src/agents/shell/screens.js';
import { importDist, sleep } from './support.js';
import { RUN_TIMEOUT_MS } from './util.js';

export interface Workload {
  name: string;
  command: string;
  args: string[];
  /** Bytes every reader must receive. */
  expected: number;
  /** The stream ends with a y/n prompt the detector must raise once. */
  endsWithPrompt: boolean;
  /** Every byte must be parsed: the ratio does not count if the screen model skipped any. */
  everyByte?: boolean;
}

export interface DetectorSample {
  ms: number;
  bytes: number;
  problem?: string;
  /** Full session only: screen settles (each runs the detector once), events seen. */
  settles?: number;
  prompts?: number;
  statusEvents?: number;
  /** Bytes the screen model skipped during bursts (it keeps 1 MiB unparsed at most). */
  skippedBytes?: number;
  /** From the last output event to the screen's settle after it: the backlog left at the end, parsed. */
  tailMs?: number;
}

/**
 * A TUI-like writer (CommonJS for `node -e`): 64 KiB writes of 23 coloured rows drawn with absolute cursor
 * moves (no "\n", so the PTY adds nothing), a pause of `pauseMs` every `everyBytes`, then a y/n prompt on
 * the last row. Exactly `total` bytes. argv: total pauseMs everyBytes.
 */
const TUI_WRITER = `
const fs = require('node:fs');
const [total, pauseMs, every] = process.argv.slice(1).map(Number);
const CHUNK = 65536;
const chunks = [];
for (let k = 0; k < 4; k++) {
  let s = '';
  for (let row = 1; s.length < CHUNK; row = (row % 23) + 1) {
    const text = ('build step ' + k + ' row ' + row + ' ').padEnd(64, k % 2 ? '=' : '.');
    s += '\\x1b[' + row + ';1H\\x1b[3' + ((row + k) % 8) + 'm' + text + '\\x1b[0m\\x1b[K';
  }
  chunks.push(Buffer.from(s.slice(0, CHUNK), 'latin1'));
}
const tail = Buffer.from('\\x1b[24;1H\\x1b[KContinue? (y/n) ');
const pause = new Int32Array(new SharedArrayBuffer(4));
const write = (buf, n) => {
  for (let off = 0; off < n; ) {
    try { off += fs.writeSync(1, buf, off, n - off); }
    catch (e) { if (e.code !== 'EAGAIN') throw e; Atomics.wait(pause, 0, 0, 1); }
  }
};
const body = total - tail.length;
let written = 0, since = 0, k = 0;
while (written < body) {
  const n = Math.min(CHUNK, body - written);
  write(chunks[k++ % 4], n);
  written += n;
  since += n;
  if (pauseMs > 0 && since >= every) { since = 0; Atomics.wait(pause, 0, 0, pauseMs); }
}
write(tail, tail.length);
`;

export function plainWorkload(size: number): Workload {
  const script = `head -c ${size} /dev/zero | tr '\\0' a`;
  return { name: 'plain', command: 'sh', args: ['-c', script], expected: size, endsWithPrompt: false };
}

export function burstyWorkload(size: number, pauseMs: number, everyBytes: number): Workload {
  const args = ['-e', TUI_WRITER, String(size), String(pauseMs), String(everyBytes)];
  return {
    name: `TUI, ${pauseMs} ms pauses every ${everyBytes >= 1024 * 1024 ? `${everyBytes / 1024 / 1024} MiB` : `${everyBytes / 1024} KiB`}`,
    command: process.execPath,
    args,
    expected: size,
    endsWithPrompt: true,
  };
}

/** (a) PtyProcess.spawn, counting the bytes of its data events; spawn to exit. */
export async function bareDriver(root: string, workload: Workload): Promise<DetectorSample> {
  const { PtyProcess } = await importDist<typeof PtyModule>(root, 'drivers/terminal/pty-process.js');
  const started = performance.now();
  const pty = await PtyProcess.spawn({
    command: workload.command,
    args: workload.args,
    cwd: root,
    env: process.env,
  });
  let bytes = 0;
  pty.onData((chunk) => {
    bytes += chunk.length;
  });
  const hung = setTimeout(() => void pty.stop(), RUN_TIMEOUT_MS);
  const exit = await pty.exited;
  clearTimeout(hung);
  const sample: DetectorSample = { ms: performance.now() - started, bytes };
  if (exit.exitCode !== 0) sample.problem = `bare driver: exit ${JSON.stringify(exit)}`;
  return sample;
}

/**
 * (b) TerminalSession.start with the shell vocabulary (screen model and detector on), counting the bytes of
 * its output events; spawn to exit. Then waits for the screen's settle after the last byte (not timed).
 */
export async function fullSession(root: string, workload: Workload): Promise<DetectorSample> {
  const { TerminalSession } = await importDist<typeof SessionModule>(
    root,
    'drivers/terminal/terminal-session.js',
  );
  const { shellScreens } = await importDist<typeof ShellScreens>(root, 'agents/shell/screens.js');
  const started = performance.now();
  const session = await TerminalSession.start({
    command: workload.command,
    args: workload.args,
    cwd: root,
    env: process.env,
    vocabulary: shellScreens,
  });
  let bytes = 0;
  let prompts = 0;
  let statusEvents = 0;
  let settles = 0;
  let lastSettleAt = 0;
  let lastOutputAt = 0;
  session.on((event) => {
    if (event.type === 'output') {
      bytes += event.data.length;
      lastOutputAt = performance.now();
    } else if (event.type === 'prompt') prompts++;
    else if (event.type === 'status') statusEvents++;
  });
  session.screen.onSettled(() => {
    settles++;
    lastSettleAt = performance.now();
  });
  const hung = setTimeout(() => void session.stop(), RUN_TIMEOUT_MS);
  const exit = await session.exited;
  clearTimeout(hung);
  const sample: DetectorSample = { ms: performance.now() - started, bytes };
  // The last settle comes SCREEN_SETTLE_MS after the last byte, plus the backlog's parse: wait for it.
  for (let waited = 0; lastSettleAt < lastOutputAt && waited < 5_000; waited += 5) await sleep(5);
  sample.tailMs = lastSettleAt - lastOutputAt;
  Object.assign(sample, { settles, prompts, statusEvents });
  sample.skippedBytes = session.screen.snapshot().skippedBytes;
  await session.stop();
  if (exit.exitCode !== 0) sample.problem = `full session: exit ${JSON.stringify(exit)}`;
  return sample;
}
