/**
 * web-terminal: the web UI's live terminal. Throughput of one session's output to 1 and 10 WebSocket viewers,
 * and the keystroke → echo round trip, against node-pty in this process running the same workload (the
 * baseline) and against the peers (wetty; ttyd where installed) serving the same workload, in the same run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cpuSnapshot, processCpuMs } from './process-cpu.js';
import { fmt, waitUntil, withTimeout } from './support.js';
import type { Benchmark, BenchContext, Ratio, Result } from './types.js';
import { atLeast, formatBytes, info, measurement, median, MiB, moreReps, round2 } from './util.js';
import type { Command } from './web-viewers.js';
import { echoSamples, latency, ViewerProcess } from './web-terminal-echo.js';
import { startPeers, type PeerServer } from './web-peers.js';
import {
  rawStream,
  startHost,
  SESSION_WARMUP_BYTES,
  streamLines,
  workloadLine,
  writeWorkload,
  type Mode,
  type StreamRun,
  type WebHost,
} from './web-terminal-host.js';

const SIZES = { quick: 10 * MiB, full: 50 * MiB };
const WARMUP_BYTES = MiB;
const MODES: Mode[] = ['plain', 'tui'];
const REPETITIONS = 3;
const VIEWERS_TARGET = 0.8;
const PEER_TARGET = 1;
/** A peer's 10 clients are 10 programs of their own: a fifth of the size each, to keep the run short. */
const PEER_MANY_SHARE = 5;
const STREAM_TIMEOUT_MS = 5 * 60_000;
const WARM_TIMEOUT_MS = 60_000;

interface Run extends StreamRun {
  /** CPU of this process (server, sessions, node-pty) over the stream, ms. */
  serverCpuMs: number;
  /**
   * CPU of the whole server side over the stream, ms: this process, the session host (ours) or the peer's
   * server, and the workload they ran (from /proc: bench/process-cpu.ts).
   */
  serverSideCpuMs: number;
  /** Viewers the server skipped ahead and redrew (by design, when one falls 4 MiB behind). */
  redrawn?: boolean[];
  /** CPU of the viewers' process, ms (WebSocket variants). */
  viewerCpuMs?: number;
  /** Binary frames the first viewer got (WebSocket variants). */
  frames?: number;
}

interface Variant {
  name: string;
  /** Clients; 0 for the two in-process readers. */
  viewers: number;
  /** Bytes per run as a share of the size (a peer's 10 programs). */
  share: number;
  reference?: boolean;
  run(mode: Mode, size: number): Promise<Run>;
}

async function cpuOf<T>(body: () => Promise<T>) {
  const cpu = process.cpuUsage();
  const value = await body();
  const used = process.cpuUsage(cpu);
  return { value, serverCpuMs: (used.user + used.system) / 1000 };
}

/**
 * The server side's CPU over `body` (see Run.serverSideCpuMs): `alive`, the peer's server that runs on after
 * it; `host`, a session host that `body` waits out (its CPU before the stream, its start, is not counted).
 */
async function serverSideCpu<T>(body: () => Promise<T>, alive: number[] = [], host: number | null = null) {
  const before = cpuSnapshot(alive);
  const hostBefore = host === null ? null : processCpuMs(host);
  const value = await body();
  const hostStart = hostBefore ? hostBefore.own + hostBefore.children : 0;
  return { value, serverSideCpuMs: cpuSnapshot(alive) - before - hostStart };
}

function inProcess(host: WebHost, file: string): Variant {
  return {
    name: 'in-process viewer',
    viewers: 0,
    share: 1,
    run: async (mode, size) => {
      const id = await host.startSession(file);
      let bytes = 0;
      let last = 0;
      const viewer = await host.attach(id, (data) => {
        last = performance.now();
        bytes += data.length;
      });
      viewer.input(workloadLine(mode, SESSION_WARMUP_BYTES));
      await waitUntil(
        () => (bytes >= SESSION_WARMUP_BYTES ? true : undefined),
        WARM_TIMEOUT_MS,
        'the warm-up',
        5,
      );
      bytes = 0;
      const typed = performance.now();
      const { value, serverSideCpuMs } = await serverSideCpu(
        async () => {
          const { serverCpuMs } = await cpuOf(() => {
            viewer.input(streamLines(mode, size));
            return withTimeout(viewer.exited, STREAM_TIMEOUT_MS, 'the in-process viewer');
          });
          viewer.detach();
          await host.ended(id);
          return serverCpuMs;
        },
        [],
        host.hostPid(id),
      );
      return { ms: last - typed, bytes: [bytes], serverCpuMs: value, serverSideCpuMs };
    },
  };
}

/** How a variant's clients attach, and what ends its run (`failed`: the run had a problem). */
interface Attach {
  command: Command;
  done(failed: boolean): Promise<void>;
  /** The peer's server, which runs on after the run. */
  alive?: number[];
  /** The session host the run waits out in done(). */
  host?: number | null;
}

/** Clients in the viewers' process: agent-bridge's viewers of one session, or a peer's clients. */
function clients(
  viewers: ViewerProcess,
  name: string,
  count: number,
  attach: () => Promise<Attach>,
  share = 1,
): Variant {
  return {
    name,
    viewers: count,
    share,
    run: async (mode, size) => {
      const { command, done, alive, host } = await attach();
      await viewers.request(command, 'attached');
      const warmup = workloadLine(mode, SESSION_WARMUP_BYTES);
      const warm = {
        cmd: 'warm',
        line: warmup,
        bytes: SESSION_WARMUP_BYTES,
        timeoutMs: WARM_TIMEOUT_MS,
      } as const;
      await viewers.request(warm, 'warmed');
      const line = streamLines(mode, Math.round(size / share));
      const measured = await serverSideCpu(
        async () => {
          const { value, serverCpuMs } = await cpuOf(() =>
            viewers.request({ cmd: 'stream', line, timeoutMs: STREAM_TIMEOUT_MS }, 'streamed'),
          );
          await viewers.request({ cmd: 'close' }, 'closed');
          await done(value.exited < count);
          return { ...value, serverCpuMs };
        },
        alive,
        host,
      );
      const { ms, bytes, cpuMs, frames, redrawn, serverCpuMs, exited } = measured.value;
      const run: Run = {
        ms,
        bytes,
        serverCpuMs,
        serverSideCpuMs: measured.serverSideCpuMs,
        viewerCpuMs: cpuMs,
        frames,
        redrawn,
      };
      if (exited < count)
        run.problem = `only ${exited} of ${count} clients saw the end within ${STREAM_TIMEOUT_MS / 1000} s`;
      return run;
    },
  };
}

function variants(host: WebHost, viewers: ViewerProcess, peers: PeerServer[], file: string, cwd: string) {
  const raw: Variant = {
    name: 'raw node-pty',
    viewers: 0,
    share: 1,
    reference: true,
    run: async (mode, size) => {
      const { value, serverSideCpuMs } = await serverSideCpu(() =>
        cpuOf(() => rawStream(file, mode, size, cwd)),
      );
      return { ...value.value, serverCpuMs: value.serverCpuMs, serverSideCpuMs };
    },
  };
  const ours = [1, 10].map((count) =>
    clients(viewers, `agent-bridge, ${count} viewer${count > 1 ? 's' : ''}`, count, async () => {
      const sessionId = await host.startSession(file);
      const command: Command = {
        cmd: 'attach',
        peer: 'agent-bridge',
        url: host.url,
        token: host.token,
        sessionId,
        viewers: count,
      };
      const done = async (failed: boolean) => {
        if (failed) await host.stop(sessionId);
        else await host.ended(sessionId);
      };
      return { command, done, host: host.hostPid(sessionId) };
    }),
  );
  const theirs = peers.flatMap((peer) =>
    [1, 10].map((count) =>
      clients(
        viewers,
        `${peer.name}, ${count} client${count > 1 ? 's' : ''}`,
        count,
        async () => ({
          command: { cmd: 'attach', peer: peer.peer, url: peer.url, viewers: count } satisfies Command,
          done: async () => undefined,
          alive: [peer.pid],
        }),
        count > 1 ? PEER_MANY_SHARE : 1,
      ),
    ),
  );
  return [raw, inProcess(host, file), ...ours, ...theirs];
}

/** Every client must get exactly its bytes: a loss is a problem for agent-bridge, a note for the others. */
function check(run: Run, variant: Variant, expected: number, where: string, result: Result): void {
  if (run.problem) result.problems.push(`${where}: ${run.problem}`);
  // A viewer that fell behind is skipped ahead and redrawn by design: fewer bytes, not a loss.
  const redrawn = run.redrawn?.filter(Boolean).length ?? 0;
  if (redrawn > 0)
    result.notes.push(
      `${where}: ${redrawn} of ${run.bytes.length} viewer(s) fell 4 MiB behind and were redrawn`,
    );
  const wrong = run.bytes.filter((b, i) => b !== expected && !run.redrawn?.[i]);
  if (wrong.length === 0) return;
  const lost = wrong.reduce((sum, b) => sum + (expected - b), 0);
  const line =
    `${where}: ${wrong.length} of ${run.bytes.length} reader(s) got the wrong byte count ` +
    `(expected ${expected}, got ${Math.min(...wrong)}..${Math.max(...wrong)}; ${lost} LOST in all)`;
  const ours = variant.name.startsWith('agent-bridge') || variant.name === 'in-process viewer';
  if (ours) result.problems.push(line);
  else result.notes.push(`${variant.reference ? 'reference' : 'peer'} ${line}`);
}

type Runs = Map<string, Run[]>;

async function throughput(ctx: BenchContext, list: Variant[], size: number, result: Result): Promise<void> {
  const reps = ctx.reps ?? REPETITIONS;
  ctx.log(`  throughput: ${formatBytes(size)} per run, ${reps} repetitions; warming up`);
  for (const variant of list) await variant.run('plain', WARMUP_BYTES);
  for (const mode of MODES) {
    const runs: Runs = new Map(list.map((v) => [v.name, []]));
    for (
      let rep = 0;
      moreReps(rep, reps, rep === 0 ? [] : targets(list, runs, mode).map((r) => [r.value, 1]));
      rep++
    ) {
      for (let i = 0; i < list.length; i++) {
        const variant = list[(i + rep) % list.length]!;
        const run = await variant.run(mode, size);
        const expected = Math.round(size / variant.share);
        check(run, variant, expected, `${mode}: ${variant.name}, repetition ${rep + 1}`, result);
        runs.get(variant.name)!.push(run);
        const mbs = expected / 1e6 / (run.ms / 1000);
        ctx.log(
          `  ${mode} #${rep + 1} ${variant.name.padEnd(24)} ${fmt(run.ms).padStart(8)} ms  ${mbs.toFixed(1).padStart(6)} MB/s per client` +
            `  cpu ${fmt(run.serverCpuMs)} ms, server side ${fmt(run.serverSideCpuMs)}` +
            (run.viewerCpuMs === undefined ? '' : ` (clients ${fmt(run.viewerCpuMs)})`),
        );
      }
    }
    report(list, runs, mode, size, result);
  }
}

/** The ratios with a target, for `mode`: 10 viewers vs raw; each peer's 1 client vs ours (time / time). */
function targets(list: Variant[], runs: Runs, mode: Mode): Ratio[] {
  const ms = (name: string) => median(runs.get(name)?.map((r) => r.ms) ?? []);
  const rawMs = ms('raw node-pty');
  const out: Ratio[] = [
    atLeast(
      `${mode}: agent-bridge 10 viewers / raw node-pty (per viewer)`,
      rawMs / ms('agent-bridge, 10 viewers'),
      VIEWERS_TARGET,
    ),
  ];
  for (const peer of list.filter((v) => v.viewers === 1 && !v.name.startsWith('agent-bridge')))
    out.push(
      atLeast(
        `${mode}: ${peer.name} time / agent-bridge 1 viewer time`,
        ms(peer.name) / ms('agent-bridge, 1 viewer'),
        PEER_TARGET,
      ),
    );
  return out;
}

function report(list: Variant[], runs: Runs, mode: Mode, size: number, result: Result): void {
  const medianOf = (name: string, pick: (r: Run) => number) => median(runs.get(name)!.map(pick));
  for (const variant of list) {
    const each = variant.viewers > 1 ? ' (each)' : '';
    const bytes = Math.round(size / variant.share);
    result.measurements.push(
      measurement(
        `${mode}: ${variant.name}${each}`,
        runs.get(variant.name)!.map((r) => r.ms),
        bytes,
      ),
    );
  }
  for (const variant of list)
    result.measurements.push(
      measurement(
        `${mode} CPU, bench process: ${variant.name}`,
        runs.get(variant.name)!.map((r) => r.serverCpuMs),
      ),
      measurement(
        `${mode} CPU, server side: ${variant.name}`,
        runs.get(variant.name)!.map((r) => r.serverSideCpuMs),
      ),
    );
  result.ratios.push(...targets(list, runs, mode));
  const rawMs = medianOf('raw node-pty', (r) => r.ms);
  for (const variant of list.filter((v) => v.viewers > 0 && v.name !== 'agent-bridge, 10 viewers'))
    result.ratios.push(
      info(
        `${mode}: ${variant.name} / raw node-pty (per client, its own size)`,
        rawMs / variant.share / medianOf(variant.name, (r) => r.ms),
      ),
    );
  result.ratios.push(
    info(
      `${mode}: in-process viewer / raw node-pty (the session alone)`,
      rawMs / medianOf('in-process viewer', (r) => r.ms),
    ),
  );
  const framed = list.filter((v) => v.name.startsWith('agent-bridge'));
  result.notes.push(
    `${mode}: bytes per binary frame (first viewer, median): ` +
      framed.map((v) => `${v.name} ${Math.round(size / medianOf(v.name, (r) => r.frames ?? 1))}`).join(', '),
    `${mode}: CPU of the server side (the bench process, the session host or the peer's server, and the ` +
      'workload) per MB sent to each client, median ms: ' +
      list
        .map((v) => {
          const mb = (Math.max(1, v.viewers) * size) / v.share / 1e6;
          return `${v.name} ${round2(medianOf(v.name, (r) => r.serverSideCpuMs) / mb)}`;
        })
        .join(', '),
    `${mode}: CPU of the viewers' process per MB, median ms: ` +
      list
        .filter((v) => v.viewers > 0)
        .map(
          (v) =>
            `${v.name} ${round2(medianOf(v.name, (r) => r.viewerCpuMs ?? 0) / ((v.viewers * size) / v.share / 1e6))}`,
        )
        .join(', '),
  );
}

async function run(ctx: BenchContext): Promise<Result> {
  const size = ctx.quick ? SIZES.quick : SIZES.full;
  const result: Result = {
    name: 'web-terminal',
    params: {
      bytes: size,
      repetitions: ctx.reps ?? REPETITIONS,
      echoSamples: echoSamples(ctx),
      cols: 120,
      rows: 40,
    },
    measurements: [],
    ratios: [],
    notes: [],
    problems: [],
  };
  const tmp = await mkdtemp(path.join(tmpdir(), 'agent-bridge-bench-web-'));
  const file = writeWorkload(tmp, size);
  const host = await startHost(ctx.root, tmp, await ctx.home());
  const peers = await startPeers(ctx.root, file);
  const viewers = new ViewerProcess(ctx.root);
  try {
    result.notes.push(...peers.skipped);
    await throughput(ctx, variants(host, viewers, peers.running, file, tmp), size, result);
    await latency(ctx, { host, viewers, peers: peers.running, file, cwd: tmp }, result);
    result.notes.unshift(
      'time = the line that starts the output, typed by a client, to the last byte at the last client (clients in a ' +
        'process of their own, as browsers); ratio = median / median; every reader runs the same workload script',
      `a peer's 10 clients are 10 programs (that is how wetty and ttyd work), ${formatBytes(size / PEER_MANY_SHARE)} each`,
      'agent-bridge records every web session (.cast), as serve does',
    );
  } finally {
    viewers.stop();
    for (const peer of peers.running) peer.stop();
    await host.close();
    await rm(tmp, { recursive: true, force: true });
  }
  return result;
}

export const webTerminal: Benchmark = {
  name: 'web-terminal',
  description:
    'the web UI live terminal: 1 and 10 viewers and keystroke echo, vs raw node-pty, wetty and ttyd',
  run,
};
