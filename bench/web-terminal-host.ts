/**
 * The server side of web-terminal, in the bench process: agent-bridge's web server and sessions backend from
 * dist/ (as `serve` wires them, on 127.0.0.1 with a token), a viewer attached in-process (no WebSocket), and
 * the raw node-pty baselines running the same workloads.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { spawn as spawnPty, type IPty } from 'node-pty';
import type * as WebServerModule from '../src/channels/web/web-server.js';
import type * as ClockModule from '../src/core/clock.js';
import type * as LiveModule from '../src/sessions/live-sessions.js';
import type * as BackendModule from '../src/sessions/web-backend.js';
import type * as StoreModule from '../src/store/store.js';
import { processCpuMs } from './process-cpu.js';
import { importDist, sleep, waitUntil, withTimeout } from './support.js';

/** The size web sessions get (SessionsWebBackend.start); the raw baselines use the same. */
export const COLS = 120;
export const ROWS = 40;
/** Printed once the terminal is set up: the workload then waits for a line, so viewers attach first. */
export const MARKER = '#';
/** Printed once the echo mode is on (doubled in printf's format). */
export const ECHO_MARKER = '%';
const WAIT_MS = 30_000;

export type Mode = 'plain' | 'tui' | 'echo';

/**
 * The one workload every reader runs (ours, the peers', raw node-pty), a shell script: it prints MARKER and
 * reads lines `<mode> <bytes>` (echo off, so a line adds nothing): `plain` prints that many "a"s, `tui` that
 * many bytes of a full-screen redraw (cursor moves, 256 colours, box drawing), `echo` switches to raw mode and
 * sends every key back (cat); any other line ends it. Exactly `bytes` arrive after each line.
 */
export function writeWorkload(dir: string, maxBytes: number): string {
  const tui = path.join(dir, 'tui.bin');
  let block = '';
  for (let frame = 0; block.length < 1024 * 1024; frame++) {
    for (let row = 1; row <= ROWS - 1; row++) {
      const text = `│ frame ${frame} row ${row} ${'█'.repeat(row % 9)}`.padEnd(
        COLS - 10,
        frame % 2 ? '─' : ' ',
      );
      block += `\x1b[${row};1H\x1b[38;5;${(row * 7 + frame) % 256}m${text}\x1b[0m\x1b[K`;
    }
  }
  const bytes = Buffer.from(block);
  const copies = Math.ceil(maxBytes / bytes.length);
  writeFileSync(tui, Buffer.concat(Array.from({ length: copies }, () => bytes)));
  const file = path.join(dir, 'workload.sh');
  writeFileSync(
    file,
    `stty -echo
printf '${MARKER}'
while IFS=' ' read -r mode n; do
  case "$mode" in
    echo) stty raw -echo; printf '${ECHO_MARKER}${ECHO_MARKER}'; exec cat ;;
    tui) head -c "$n" '${tui}' ;;
    plain) head -c "$n" /dev/zero | tr '\\0' a ;;
    *) exit 0 ;;
  esac
done
`,
  );
  return file;
}

/** The line that starts a workload (echo mode), or a stream the session goes on after. */
export function workloadLine(mode: Mode, bytes: number): string {
  return `${mode} ${bytes}\r`;
}

/**
 * The measured stream: `bytes` of `mode`, then the workload ends (the second line waits in the terminal's
 * input until the first stream is out).
 */
export function streamLines(mode: Mode, bytes: number): string {
  return `${workloadLine(mode, bytes)}end\r`;
}

/**
 * What each session streams before the measured stream (see SESSION_WARMUP_BYTES): a running session's
 * throughput is measured, not a new process's first megabytes. A session host is a new Node process per
 * session, whose first 10 MiB cost ~40% more CPU than the next (its code not yet optimised); the peers' servers
 * and the raw baseline run on in one process from run to run.
 */
export const SESSION_WARMUP_BYTES = 4 * 1024 * 1024;

/** Times one key to its echo: `feed` every output chunk, `sample(char)` per key. */
export class Echoer {
  private waiting: { char: string; resolve: (ms: number) => void; at: number } | null = null;

  constructor(private readonly write: (data: string) => void) {}

  feed(chunk: Uint8Array): void {
    const now = performance.now();
    const waiting = this.waiting;
    if (waiting && Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length).includes(waiting.char)) {
      this.waiting = null;
      waiting.resolve(now - waiting.at);
    }
  }

  sample(char: string): Promise<number> {
    const done = new Promise<number>((resolve) => {
      this.waiting = { char, resolve, at: performance.now() };
    });
    this.write(char);
    return withTimeout(done, WAIT_MS, `the echo of ${JSON.stringify(char)}`);
  }
}

export interface StreamRun {
  /** The line typed (the key that starts the output) to the last byte at the last reader, ms. */
  ms: number;
  /** Bytes received after the line (per viewer; one entry for raw and in-process). */
  bytes: number[];
  problem?: string;
}

/**
 * The baseline: node-pty in this process (Buffers), the same workload; the session's warm-up stream first,
 * then timed from the line to the last byte.
 */
export function rawStream(file: string, mode: Mode, size: number, cwd: string): Promise<StreamRun> {
  return new Promise((resolve) => {
    const pty = spawnPty('sh', [file], ptyOptions(cwd));
    let state: 'start' | 'warming' | 'streaming' = 'start';
    let bytes = 0;
    let typed = 0;
    let last = 0;
    pty.onData((data) => {
      const chunk = data as unknown as Buffer;
      if (state === 'start') {
        if (!chunk.includes(MARKER)) return;
        state = 'warming';
        pty.write(workloadLine(mode, SESSION_WARMUP_BYTES));
        return;
      }
      bytes += chunk.length;
      last = performance.now();
      if (state === 'warming' && bytes >= SESSION_WARMUP_BYTES) {
        state = 'streaming';
        bytes -= SESSION_WARMUP_BYTES;
        typed = performance.now();
        pty.write(streamLines(mode, size));
      }
    });
    const hung = setTimeout(() => pty.kill('SIGKILL'), 10 * 60_000);
    pty.onExit(({ exitCode, signal }) => {
      clearTimeout(hung);
      const run: StreamRun = { ms: last - typed, bytes: [bytes] };
      if (exitCode !== 0) run.problem = `raw node-pty: exit code ${exitCode}, signal ${signal ?? 0}`;
      resolve(run);
    });
  });
}

/** node-pty in this process running the workload in echo mode: the latency baseline. */
export async function rawEcho(file: string, cwd: string): Promise<{ echoer: Echoer; close(): void }> {
  const pty: IPty = spawnPty('sh', [file], ptyOptions(cwd));
  const echoer = new Echoer((data) => pty.write(data));
  let state: 'start' | 'typed' | 'ready' = 'start';
  pty.onData((data) => {
    const chunk = data as unknown as Buffer;
    if (state === 'start' && chunk.includes(MARKER)) {
      state = 'typed';
      pty.write(workloadLine('echo', 0));
    } else if (state === 'typed' && chunk.includes(ECHO_MARKER)) state = 'ready';
    else echoer.feed(chunk);
  });
  await waitUntil(() => (state === 'ready' ? true : undefined), WAIT_MS, 'the raw echo shell');
  return { echoer, close: () => pty.kill('SIGKILL') };
}

function ptyOptions(cwd: string) {
  return { name: 'xterm-256color', cols: COLS, rows: ROWS, cwd, env: process.env, encoding: null };
}

export interface InProcessViewer {
  input(data: string): void;
  /** Resolves when the session's exit reached the viewer. */
  exited: Promise<void>;
  detach(): void;
}

export interface WebHost {
  url: string;
  token: string;
  /** POST /api/sessions with agent `custom`: `sh file` (the workload); resolves once MARKER is on its screen. */
  startSession(file: string): Promise<string>;
  /** A viewer straight on the backend (what the WebSocket handler calls), without the socket. */
  attach(id: string, output: (data: Uint8Array) => void): Promise<InProcessViewer>;
  /** The session host's process (a child of this one), while it runs. */
  hostPid(id: string): number | null;
  /**
   * Resolves once the session has left the live sessions and its host's process is gone (reaped: its CPU,
   * and its agent's, then count in this process's children's times).
   */
  ended(id: string): Promise<void>;
  stop(id: string): Promise<void>;
  close(): Promise<void>;
}

/** Starts the web server (dist/) on 127.0.0.1, port 0, with a token; sessions run in `dir`, data in `home`. */
export async function startHost(root: string, dir: string, home: string): Promise<WebHost> {
  const previousHome = process.env.AGENT_BRIDGE_HOME;
  process.env.AGENT_BRIDGE_HOME = home;
  mkdirSync(home, { recursive: true });
  const { startWebServer } = await importDist<typeof WebServerModule>(root, 'channels/web/web-server.js');
  const { systemClock } = await importDist<typeof ClockModule>(root, 'core/clock.js');
  const { LiveSessions } = await importDist<typeof LiveModule>(root, 'sessions/live-sessions.js');
  const { SessionsWebBackend } = await importDist<typeof BackendModule>(root, 'sessions/web-backend.js');
  const { openStore } = await importDist<typeof StoreModule>(root, 'store/store.js');
  const store = openStore({ dir: home });
  const watchStore = openStore({ dir: home });
  const live = new LiveSessions();
  const backend = new SessionsWebBackend({
    store,
    watchStore,
    clock: systemClock,
    live,
    version: '0',
    cwd: dir,
  });
  const token = `bench-${Math.random().toString(36).slice(2)}-${Date.now()}`;
  const server = await startWebServer({
    backend,
    token,
    host: '127.0.0.1',
    port: 0,
    clock: systemClock,
    staticDir: path.join(dir, 'no-app'),
  });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const session = (id: string) => {
    const found = live.get(id);
    if (!found) throw new Error(`session ${id} is not live`);
    return found;
  };
  const hostPids = new Map<string, number>();
  const gone = (pid: number | undefined) => pid === undefined || processCpuMs(pid) === null;
  const ended = async (id: string) => {
    await waitUntil(() => (live.get(id) ? undefined : true), WAIT_MS, `session ${id} to end`, 5);
    await waitUntil(
      () => (gone(hostPids.get(id)) ? true : undefined),
      WAIT_MS,
      `the host of ${id} to end`,
      5,
    );
    hostPids.delete(id);
  };
  return {
    url: server.url,
    token,
    async startSession(file) {
      const response = await fetch(`${server.url}/api/sessions`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ agent: 'custom', cwd: dir, args: ['sh', file] }),
      });
      const body = (await response.json()) as { id?: string; error?: string };
      if (response.status !== 201 || !body.id)
        throw new Error(`POST /api/sessions: ${response.status} ${body.error ?? ''}`);
      const id = body.id;
      const hostPid = store.sessions.get(id)?.sessionHost?.process.pid;
      if (hostPid !== undefined) hostPids.set(id, hostPid);
      const terminal = session(id).terminal!;
      for (const deadline = performance.now() + WAIT_MS; ; await sleep(5)) {
        if ((await terminal.snapshot()).text.includes(MARKER)) return id;
        if (performance.now() > deadline) throw new Error(`session ${id} never printed its marker`);
      }
    },
    async attach(id, output) {
      let exit: () => void = () => undefined;
      const exited = new Promise<void>((resolve) => (exit = resolve));
      const attachment = await backend.attach(id, { output, exit: () => exit() });
      if (!attachment) throw new Error(`cannot attach to session ${id}`);
      return { input: (data) => attachment.input(data), exited, detach: () => attachment.detach() };
    },
    hostPid: (id) => hostPids.get(id) ?? null,
    ended,
    async stop(id) {
      await fetch(`${server.url}/api/sessions/${id}/stop`, { method: 'POST', headers, body: '{}' });
      await ended(id);
    },
    async close() {
      await Promise.all(live.all().map((s) => s.driver.stop()));
      await sleep(200); // each session's finish() (recording, store rows) runs after its exit
      await server.close();
      backend.close();
      store.close();
      watchStore.close();
      if (previousHome === undefined) delete process.env.AGENT_BRIDGE_HOME;
      else process.env.AGENT_BRIDGE_HOME = previousHome;
    },
  };
}
