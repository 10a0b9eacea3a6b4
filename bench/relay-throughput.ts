import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { agentBridgeRelay, rawNodePty, type Sample } from './relay-runners.js';
import type { Benchmark, BenchContext, Ratio, Result } from './types.js';
import { atLeast, formatBytes, formatMs, info, measurement, median, MiB } from './util.js';

const FULL_BYTES = 200 * MiB;
const QUICK_BYTES = 20 * MiB;
const WARMUP_BYTES = 1 * MiB;
const REPETITIONS = 3;
const STARTUP_REPETITIONS = { quick: 5, full: 9 };
const TARGET = 0.9;

interface Workload {
  name: string;
  script: string;
  /** Bytes a reader must receive: the PTY turns every "\n" into "\r\n" (onlcr). */
  expected: number;
}

interface Variant {
  name: string;
  run: (script: string) => Promise<Sample>;
}

/** Bulk writes: `cat` of a file of N "a"s. Line-by-line writes: fold's 100-column lines. */
function workloads(plainFile: string, size: number): Workload[] {
  const newlines = Math.ceil(size / 100) - 1; // fold adds no newline after the last line
  return [
    { name: 'plain', script: `cat '${plainFile}'`, expected: size },
    {
      name: 'pipeline',
      script: `head -c ${size} /dev/zero | tr '\\0' a | fold -w 100`,
      expected: size + 2 * newlines,
    },
  ];
}

function variants(ctx: BenchContext, home: string): Variant[] {
  return [
    { name: 'raw node-pty', run: (script) => rawNodePty(script, ctx.root) },
    {
      name: 'agent-bridge --no-record',
      run: (script) => agentBridgeRelay(script, { root: ctx.root, home, record: false }),
    },
    {
      name: 'agent-bridge (recording)',
      run: (script) => agentBridgeRelay(script, { root: ctx.root, home, record: true }),
    },
  ];
}

async function writePlainFile(file: string, size: number): Promise<void> {
  const block = Buffer.alloc(MiB, 'a');
  const out = createWriteStream(file);
  for (let written = 0; written < size; written += block.length) {
    const part = size - written >= block.length ? block : block.subarray(0, size - written);
    if (!out.write(part)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/** Judges one sample: any byte lost or invented, any bad exit, is a problem; raw node-pty's own loss is a note. */
function check(sample: Sample, variant: string, workload: Workload, rep: number, result: Result): void {
  const where = `${variant}, ${workload.name}, repetition ${rep + 1}`;
  if (sample.problem) result.problems.push(`${where}: ${sample.problem}`);
  const diff = workload.expected - sample.bytes;
  if (diff !== 0) {
    const what = diff > 0 ? `LOST ${diff} bytes` : `received ${-diff} bytes MORE than written`;
    const line = `${where}: ${what} (got ${sample.bytes} of ${workload.expected})`;
    if (variant === 'raw node-pty') result.notes.push(`baseline ${line} (node-pty/libuv exit race)`);
    else result.problems.push(line);
  }
  if (sample.recordedBytes !== undefined && sample.recordedBytes !== workload.expected) {
    const diffRec = workload.expected - sample.recordedBytes;
    result.problems.push(
      `${where}: the RECORDING has ${sample.recordedBytes} of ${workload.expected} bytes (${diffRec} lost)`,
    );
  }
}

/** agent-bridge's fixed cost: an empty command (`sh -c true`) through each reader, interleaved. */
async function measureStartup(ctx: BenchContext, all: Variant[], result: Result) {
  const reps = ctx.quick ? STARTUP_REPETITIONS.quick : STARTUP_REPETITIONS.full;
  const [raw, noRecord] = [all[0]!, all[1]!];
  const times: Record<string, number[]> = { [raw.name]: [], [noRecord.name]: [] };
  for (let rep = 0; rep < reps; rep++) {
    for (const variant of rep % 2 === 0 ? [raw, noRecord] : [noRecord, raw]) {
      const sample = await variant.run('true');
      if (sample.problem) result.problems.push(`start-up, ${variant.name}: ${sample.problem}`);
      times[variant.name]!.push(sample.ms);
    }
  }
  const rawMs = median(times[raw.name]!);
  const abMs = median(times[noRecord.name]!);
  result.measurements.push(
    measurement(`empty command: ${raw.name}`, times[raw.name]!),
    measurement(`empty command: ${noRecord.name}`, times[noRecord.name]!),
  );
  const fixedMs = Math.max(0, abMs - rawMs);
  result.params.fixedStartupMs = Math.round(fixedMs);
  ctx.log(`  fixed start-up cost of agent-bridge run: ${formatMs(fixedMs)}`);
  return fixedMs;
}

async function measureWorkloads(ctx: BenchContext, all: Variant[], loads: Workload[], result: Result) {
  const times = new Map<string, number[]>();
  for (let rep = 0; rep < REPETITIONS; rep++) {
    for (const workload of loads) {
      // Rotate the order each repetition so no reader always runs first (or right after a cache warm-up).
      const order = all.map((_, i) => all[(i + rep) % all.length]!);
      for (const variant of order) {
        const sample = await variant.run(workload.script);
        check(sample, variant.name, workload, rep, result);
        const key = `${workload.name}: ${variant.name}`;
        times.set(key, [...(times.get(key) ?? []), sample.ms]);
        const mbs = workload.expected / 1e6 / (sample.ms / 1000);
        ctx.log(`  #${rep + 1} ${key.padEnd(36)} ${formatMs(sample.ms).padStart(9)}  ${mbs.toFixed(1)} MB/s`);
      }
    }
  }
  return times;
}

function ratios(loads: Workload[], all: Variant[], times: Map<string, number[]>, fixedMs: number): Ratio[] {
  const out: Ratio[] = [];
  for (const workload of loads) {
    const ms = (variant: Variant) => median(times.get(`${workload.name}: ${variant.name}`) ?? []);
    const [raw, noRecord, record] = all.map(ms) as [number, number, number];
    out.push(
      atLeast(`${workload.name}: --no-record vs raw node-pty (throughput)`, raw / noRecord, TARGET),
      info(`${workload.name}: recording vs raw node-pty (throughput)`, raw / record),
      info(`${workload.name}: recording vs --no-record (throughput)`, noRecord / record),
      info(`${workload.name}: --no-record vs raw, start-up excluded`, raw / Math.max(1, noRecord - fixedMs)),
    );
  }
  return out;
}

async function run(ctx: BenchContext): Promise<Result> {
  const size = ctx.quick ? QUICK_BYTES : FULL_BYTES;
  const result: Result = {
    name: 'relay-throughput',
    params: { bytes: size, repetitions: REPETITIONS, cols: 80, rows: 24 },
    measurements: [],
    ratios: [],
    notes: [],
    problems: [],
  };
  const tmp = await mkdtemp(path.join(tmpdir(), 'agent-bridge-bench-'));
  try {
    const home = path.join(tmp, 'home');
    await mkdir(home, { recursive: true });
    await writePlainFile(path.join(tmp, 'plain.txt'), size);
    await writePlainFile(path.join(tmp, 'warmup.txt'), WARMUP_BYTES);
    const all = variants(ctx, home);
    ctx.log(`  ${formatBytes(size)} per run; warming up`);
    for (const variant of all) await variant.run(`cat '${path.join(tmp, 'warmup.txt')}'`);
    const fixedMs = await measureStartup(ctx, all, result);
    const loads = workloads(path.join(tmp, 'plain.txt'), size);
    const times = await measureWorkloads(ctx, all, loads, result);
    for (const workload of loads) {
      for (const variant of all) {
        const key = `${workload.name}: ${variant.name}`;
        result.measurements.push(measurement(key, times.get(key) ?? [], workload.expected));
      }
    }
    result.ratios = ratios(loads, all, times, fixedMs);
    result.notes.unshift(
      'throughput ratio = raw node-pty median time / agent-bridge median time, both spawn to exit, nothing subtracted',
      `"start-up excluded" subtracts the fixed start-up cost (${formatMs(fixedMs)}), for reading small sizes only`,
    );
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  return result;
}

export const relayThroughput: Benchmark = {
  name: 'relay-throughput',
  description: 'agent-bridge run custom relaying a large output through the PTY, vs raw node-pty',
  run,
};
