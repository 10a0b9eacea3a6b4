/**
 * web-terminal: the web UI's live terminal. Throughput of one session's output to 1, 10 and 100 WebSocket
 * viewers, and the keystroke → echo round trip through the WebSocket, each against node-pty in this process
 * running the same workload (the baseline), interleaved in the same run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { fmt, withTimeout } from './support.js';
import type { Benchmark, BenchContext, Ratio, Result } from './types.js';
import { atLeast, formatBytes, info, measurement, median, MiB, round2 } from './util.js';
import type { Command } from './web-viewers.js';
import { echoSamples, latency, ViewerProcess } from './web-terminal-echo.js';
import { rawStream, startHost, streamScript, type StreamRun, type WebHost } from './web-terminal-host.js';

const SIZES = { quick: 10 * MiB, full: 50 * MiB };
const WARMUP_BYTES = MiB;
const VIEWERS = [1, 10, 100];
const REPETITIONS = 3;
const THROUGHPUT_TARGET = 0.8;
const STREAM_TIMEOUT_MS = 5 * 60_000;

interface Run extends StreamRun {
  /** CPU of this process (server, sessions, node-pty) over the stream, ms. */
  serverCpuMs: number;
  /** Viewers the server skipped ahead and redrew (by design, when one falls 4 MiB behind). */
  redrawn?: boolean[];
  /** CPU of the viewers' process, ms (WebSocket variants). */
  viewerCpuMs?: number;
  /** Peak RSS of this process over the stream, above its RSS at the start, MB. */
  peakRssMb: number;
  /** Binary frames the first viewer got (WebSocket variants). */
  frames?: number;
}

interface Variant {
  name: string;
  /** WebSocket viewers; 0 for the two in-process readers. */
  viewers: number;
  reference?: boolean;
  run(script: string): Promise<Run>;
}

/** Runs `body` while sampling this process's CPU and peak RSS. */
async function usage<T>(body: () => Promise<T>) {
  const cpu = process.cpuUsage();
  const rss0 = process.memoryUsage.rss();
  let peak = rss0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  try {
    const value = await body();
    const used = process.cpuUsage(cpu);
    peak = Math.max(peak, process.memoryUsage.rss());
    return { value, serverCpuMs: (used.user + used.system) / 1000, peakRssMb: (peak - rss0) / 1e6 };
  } finally {
    clearInterval(sampler);
  }
}

function variants(host: WebHost, viewers: ViewerProcess, cwd: string, result: Result): Variant[] {
  const raw: Variant = {
    name: 'raw node-pty',
    viewers: 0,
    reference: true,
    run: async (script) => {
      const { value, ...rest } = await usage(() => rawStream(script, cwd));
      return { ...value, ...rest };
    },
  };
  const inProcess: Variant = {
    name: 'in-process viewer',
    viewers: 0,
    run: async (script) => {
      const id = await host.startSession(script);
      let bytes = 0;
      let first = 0;
      let last = 0;
      const viewer = await host.attach(id, (data) => {
        last = performance.now();
        if (bytes === 0) first = last;
        bytes += data.length;
      });
      const { serverCpuMs, peakRssMb } = await usage(() => {
        viewer.input('\r');
        return withTimeout(viewer.exited, STREAM_TIMEOUT_MS, 'the in-process viewer');
      });
      viewer.detach();
      await host.ended(id);
      return { ms: last - first, bytes: [bytes], serverCpuMs, peakRssMb };
    },
  };
  const sockets = VIEWERS.map((count): Variant => ({
    name: `${count} WebSocket viewer${count > 1 ? 's' : ''}`,
    viewers: count,
    run: async (script) => {
      const id = await host.startSession(script);
      const attach: Command = {
        cmd: 'attach',
        url: host.url,
        token: host.token,
        sessionId: id,
        viewers: count,
      };
      const { extensions } = await viewers.request(attach, 'attached');
      result.params.deflate = extensions || 'none';
      const { value, serverCpuMs, peakRssMb } = await usage(() =>
        viewers.request({ cmd: 'stream', timeoutMs: STREAM_TIMEOUT_MS }, 'streamed'),
      );
      await viewers.request({ cmd: 'close' }, 'closed');
      const { ms, bytes, cpuMs, frames, redrawn } = value;
      const run: Run = { ms, bytes, serverCpuMs, peakRssMb, viewerCpuMs: cpuMs, frames, redrawn };
      if (value.exited < count) {
        run.problem = `only ${value.exited} of ${count} viewers got the exit frame within ${STREAM_TIMEOUT_MS / 1000} s`;
        await host.stop(id);
      } else await host.ended(id);
      return run;
    },
  }));
  return [raw, inProcess, ...sockets];
}

/** Every viewer must get exactly `expected` bytes: a loss is a problem (a note for the raw reference). */
function check(run: Run, variant: Variant, expected: number, where: string, result: Result): void {
  if (run.problem) result.problems.push(`${where}: ${run.problem}`);
  // A viewer that fell behind is skipped ahead and redrawn by design: fewer bytes, not a loss.
  const redrawn = run.redrawn?.filter(Boolean).length ?? 0;
  if (redrawn > 0)
    result.notes.push(
      `${where}: ${redrawn} of ${run.bytes.length} viewer(s) fell 4 MiB behind and were redrawn from the screen`,
    );
  const wrong = run.bytes.filter((b, i) => b !== expected && !run.redrawn?.[i]);
  if (wrong.length === 0) return;
  const lost = wrong.reduce((sum, b) => sum + (expected - b), 0);
  const line =
    `${where}: ${wrong.length} of ${run.bytes.length} reader(s) got the wrong byte count ` +
    `(expected ${expected}, got ${Math.min(...wrong)}..${Math.max(...wrong)}; ${lost} LOST in all)`;
  if (variant.reference) result.notes.push(`reference reader ${line} (node-pty#72 exit race)`);
  else result.problems.push(line);
}

async function throughput(ctx: BenchContext, list: Variant[], size: number, result: Result): Promise<void> {
  const reps = ctx.reps ?? REPETITIONS;
  ctx.log(`  throughput: ${formatBytes(size)} per run, ${reps} repetitions; warming up`);
  for (const variant of list) await variant.run(streamScript(WARMUP_BYTES));
  const runs = new Map<Variant, Run[]>(list.map((v) => [v, []]));
  for (let rep = 0; rep < reps; rep++) {
    for (let i = 0; i < list.length; i++) {
      const variant = list[(i + rep) % list.length]!;
      const run = await variant.run(streamScript(size));
      check(run, variant, size, `${variant.name}, repetition ${rep + 1}`, result);
      runs.get(variant)!.push(run);
      const mbs = size / 1e6 / (run.ms / 1000);
      ctx.log(
        `  #${rep + 1} ${variant.name.padEnd(22)} ${fmt(run.ms).padStart(8)} ms  ${mbs.toFixed(1).padStart(6)} MB/s per viewer` +
          `  cpu ${fmt(run.serverCpuMs)} ms${run.viewerCpuMs === undefined ? '' : ` (viewers ${fmt(run.viewerCpuMs)})`}` +
          `  rss +${run.peakRssMb.toFixed(0)} MB`,
      );
    }
  }
  const medianOf = (v: Variant, pick: (r: Run) => number) => median(runs.get(v)!.map(pick));
  for (const variant of list) {
    const label = variant.viewers > 1 ? `${variant.name} (each)` : variant.name;
    result.measurements.push(
      measurement(
        `stream: ${label}`,
        runs.get(variant)!.map((r) => r.ms),
        size,
      ),
    );
  }
  for (const variant of list) {
    const all = runs.get(variant)!;
    result.measurements.push(
      measurement(
        `CPU, bench process: ${variant.name}`,
        all.map((r) => r.serverCpuMs),
      ),
    );
    if (variant.viewers > 0)
      result.measurements.push(
        measurement(
          `CPU, viewer process: ${variant.name}`,
          all.map((r) => r.viewerCpuMs!),
        ),
      );
  }
  const [raw, inProcess, ...sockets] = list as [Variant, Variant, ...Variant[]];
  const rawMs = medianOf(raw, (r) => r.ms);
  const ratios: Ratio[] = [];
  for (const variant of sockets) {
    const value = rawMs / medianOf(variant, (r) => r.ms);
    const label = `${variant.name} / raw node-pty (per-viewer throughput)`;
    ratios.push(variant.viewers === 10 ? atLeast(label, value, THROUGHPUT_TARGET) : info(label, value));
  }
  const byCount = (n: number) => sockets.find((v) => v.viewers === n)!;
  const mb = size / 1e6;
  ratios.push(
    info('in-process viewer / raw node-pty (the session alone)', rawMs / medianOf(inProcess, (r) => r.ms)),
    info(
      '1 WebSocket viewer / in-process viewer',
      medianOf(inProcess, (r) => r.ms) / medianOf(byCount(1), (r) => r.ms),
    ),
    info(
      '100 viewers: all viewers together, MB/s',
      (100 * mb) / (medianOf(byCount(100), (r) => r.ms) / 1000),
    ),
    info(
      'server CPU per viewer per MB, 10 → 100 viewers (ms)',
      (medianOf(byCount(100), (r) => r.serverCpuMs) - medianOf(byCount(10), (r) => r.serverCpuMs)) /
        (90 * mb),
    ),
    info(
      'viewer CPU per viewer per MB, 100 viewers (ms)',
      medianOf(byCount(100), (r) => r.viewerCpuMs!) / (100 * mb),
    ),
  );
  result.ratios.push(...ratios);
  result.notes.push(
    'peak RSS of the bench process above its start, median MB: ' +
      list.map((v) => `${v.name} ${round2(medianOf(v, (r) => r.peakRssMb))}`).join(', '),
    'bytes per binary frame (first viewer, median): ' +
      sockets.map((v) => `${v.name} ${Math.round(size / medianOf(v, (r) => r.frames!))}`).join(', '),
  );
  const most = byCount(100);
  const cpuS = (pick: (r: Run) => number) => (medianOf(most, pick) / 1000).toFixed(2);
  result.notes.push(
    `100 viewers: bench process ${cpuS((r) => r.serverCpuMs)} s and viewer process ${cpuS((r) => r.viewerCpuMs!)} s ` +
      `of CPU in ${cpuS((r) => r.ms)} s, on ${availableParallelism()} cores shared with the writer: ` +
      'the viewers compete with the server for the machine',
  );
}

async function run(ctx: BenchContext): Promise<Result> {
  const size = ctx.quick ? SIZES.quick : SIZES.full;
  const result: Result = {
    name: 'web-terminal',
    params: {
      bytes: size,
      viewers: VIEWERS,
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
  const host = await startHost(ctx.root, tmp, await ctx.home());
  const viewers = new ViewerProcess(ctx.root);
  try {
    await throughput(ctx, variants(host, viewers, tmp, result), size, result);
    await latency(ctx, host, viewers, tmp, result);
    result.notes.unshift(
      'stream time = first byte to last byte at the last viewer (viewers in a process of their own, as browsers); ' +
        'ratio = raw node-pty median / median',
      `permessage-deflate agreed: ${String(result.params.deflate)}; the server records every session (.cast) as serve does`,
    );
  } finally {
    viewers.stop();
    await host.close();
    await rm(tmp, { recursive: true, force: true });
  }
  return result;
}

export const webTerminal: Benchmark = {
  name: 'web-terminal',
  description:
    'the web UI live terminal: output to 1/10/100 WebSocket viewers and keystroke echo, vs raw node-pty',
  run,
};
