import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { agentBridgeRelay, minimalRelay, rawNodePty, type Sample } from './relay-runners.js';
import type { Benchmark, BenchContext, Ratio, Result } from './types.js';
import { atLeast, formatBytes, formatMs, info, measurement, median, MiB, moreReps } from './util.js';

const FULL_BYTES = 200 * MiB;
const QUICK_BYTES = 20 * MiB;
const WARMUP_BYTES = 1 * MiB;
const REPETITIONS = 3;
const STARTUP_REPETITIONS = { quick: 5, full: 9 };
/** `run --no-record` against node-pty itself (issue 14), and recording against `--no-record`. */
const TARGET = 0.95;
const RECORDING_TARGET = 0.9;

interface Workload {
  name: string;
  script: string;
  /** Bytes a reader must receive: the PTY turns every "\n" into "\r\n" (onlcr). */
  expected: number;
}

interface Variant {
  name: string;
  run: (script: string) => Promise<Sample>;
  /** A reference reader: its losses are node-pty's own (noted), not agent-bridge's (problems). */
  reference?: boolean;
}

/** The readers compared; `raw` is the baseline, `minimal` the floor any Node relay through a pipe pays. */
interface Variants {
  raw: Variant;
  minimal: Variant;
  noRecord: Variant;
  record: Variant;
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

function variants(ctx: BenchContext, home: string): Variants {
  return {
    raw: { name: 'raw node-pty', run: (script) => rawNodePty(script, ctx.root), reference: true },
    minimal: { name: 'minimal relay', run: (script) => minimalRelay(script, ctx.root), reference: true },
    noRecord: {
      name: 'agent-bridge --no-record',
      run: (script) => agentBridgeRelay(script, { root: ctx.root, home, record: false }),
    },
    record: {
      name: 'agent-bridge (recording)',
      run: (script) => agentBridgeRelay(script, { root: ctx.root, home, record: true }),
    },
  };
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

/** Judges one sample: any byte lost or invented, any bad exit, is a problem; a reference reader's loss is a note. */
function check(sample: Sample, variant: Variant, workload: Workload, rep: number, result: Result): void {
  const where = `${variant.name}, ${workload.name}, repetition ${rep + 1}`;
  if (sample.problem) result.problems.push(`${where}: ${sample.problem}`);
  const diff = workload.expected - sample.bytes;
  if (diff !== 0) {
    const what = diff > 0 ? `LOST ${diff} bytes` : `received ${-diff} bytes MORE than written`;
    const line = `${where}: ${what} (got ${sample.bytes} of ${workload.expected})`;
    if (variant.reference) result.notes.push(`reference reader ${line} (node-pty#72 exit race)`);
    else result.problems.push(line);
  }
  if (sample.recordedBytes !== undefined && sample.recordedBytes !== workload.expected) {
    const diffRec = workload.expected - sample.recordedBytes;
    result.problems.push(
      `${where}: the RECORDING has ${sample.recordedBytes} of ${workload.expected} bytes (${diffRec} lost)`,
    );
  }
}

/** Runs `list` `reps` times, interleaved and rotated so no reader always runs first; times per variant. */
async function interleaved(
  list: Variant[],
  reps: number,
  each: (variant: Variant, rep: number) => Promise<number>,
  rotateBy = 0,
): Promise<Map<Variant, number[]>> {
  const times = new Map<Variant, number[]>(list.map((v) => [v, []]));
  for (let rep = 0; rep < reps; rep++) {
    const order = list.map((_, i) => list[(i + rep + rotateBy) % list.length]!);
    for (const variant of order) times.get(variant)!.push(await each(variant, rep));
  }
  return times;
}

/** The fixed cost of a relay process: an empty command (`true`) through each reader. */
async function measureStartup(ctx: BenchContext, all: Variants, result: Result): Promise<number> {
  const reps = ctx.quick ? STARTUP_REPETITIONS.quick : STARTUP_REPETITIONS.full;
  const times = await interleaved([all.raw, all.minimal, all.noRecord], reps, async (variant) => {
    const sample = await variant.run('true');
    if (sample.problem) result.problems.push(`start-up, ${variant.name}: ${sample.problem}`);
    return sample.ms;
  });
  for (const [variant, samples] of times) {
    result.measurements.push(measurement(`empty command: ${variant.name}`, samples));
  }
  const fixedMs = Math.max(0, median(times.get(all.noRecord)!) - median(times.get(all.raw)!));
  const minimalMs = Math.max(0, median(times.get(all.minimal)!) - median(times.get(all.raw)!));
  result.params.fixedStartupMs = Math.round(fixedMs);
  result.params.minimalRelayStartupMs = Math.round(minimalMs);
  ctx.log(
    `  fixed start-up cost: agent-bridge run ${formatMs(fixedMs)}, minimal relay ${formatMs(minimalMs)}`,
  );
  return fixedMs;
}

type Times = Map<string, Map<Variant, number[]>>;

async function measureWorkloads(ctx: BenchContext, all: Variants, loads: Workload[], result: Result) {
  const times: Times = new Map();
  const list = [all.raw, all.minimal, all.noRecord, all.record];
  for (const workload of loads) times.set(workload.name, new Map(list.map((v) => [v, []])));
  const figures = (): Array<[number, number]> =>
    ratios(loads, all, times, 0)
      .filter((r) => r.meetsTarget !== null)
      .map((r) => [r.value, Number(r.target.replace(/[^\d.]/g, ''))]);
  for (let rep = 0; moreReps(rep, ctx.reps ?? REPETITIONS, rep === 0 ? [] : figures()); rep++) {
    for (const workload of loads) {
      const runOne = async (variant: Variant) => {
        const sample = await variant.run(workload.script);
        check(sample, variant, workload, rep, result);
        const mbs = workload.expected / 1e6 / (sample.ms / 1000);
        const label = `${workload.name}: ${variant.name}`.padEnd(36);
        ctx.log(`  #${rep + 1} ${label} ${formatMs(sample.ms).padStart(9)}  ${mbs.toFixed(1)} MB/s`);
        return sample.ms;
      };
      // One round per repetition, rotated by the repetition so no reader always runs first.
      const perWorkload = await interleaved(list, 1, runOne, rep);
      for (const [variant, [ms]] of perWorkload) times.get(workload.name)!.get(variant)!.push(ms!);
    }
  }
  return times;
}

function ratios(loads: Workload[], all: Variants, times: Times, fixedMs: number): Ratio[] {
  const out: Ratio[] = [];
  for (const workload of loads) {
    const ms = (variant: Variant) => median(times.get(workload.name)?.get(variant) ?? []);
    const raw = ms(all.raw);
    const minimal = ms(all.minimal);
    const noRecord = ms(all.noRecord);
    const record = ms(all.record);
    const name = workload.name;
    out.push(
      atLeast(`${name}: --no-record vs raw node-pty (throughput)`, raw / noRecord, TARGET),
      info(`${name}: recording vs raw node-pty`, raw / record),
      atLeast(`${name}: recording vs --no-record`, noRecord / record, RECORDING_TARGET),
      info(`${name}: --no-record vs raw, start-up excluded`, raw / Math.max(1, noRecord - fixedMs)),
      info(`${name}: minimal relay vs raw node-pty`, raw / minimal),
      info(`${name}: --no-record vs minimal relay`, minimal / noRecord),
    );
  }
  return out;
}

async function run(ctx: BenchContext): Promise<Result> {
  const size = ctx.quick ? QUICK_BYTES : FULL_BYTES;
  const result: Result = {
    name: 'relay-throughput',
    params: { bytes: size, repetitions: ctx.reps ?? REPETITIONS, cols: 80, rows: 24 },
    measurements: [],
    ratios: [],
    notes: [],
    problems: [],
  };
  const tmp = await mkdtemp(path.join(tmpdir(), 'agent-bridge-bench-'));
  try {
    const home = await ctx.home();
    await writePlainFile(path.join(tmp, 'plain.txt'), size);
    await writePlainFile(path.join(tmp, 'warmup.txt'), WARMUP_BYTES);
    const all = variants(ctx, home);
    ctx.log(`  ${formatBytes(size)} per run; warming up`);
    for (const variant of Object.values(all)) await variant.run(`cat '${path.join(tmp, 'warmup.txt')}'`);
    const fixedMs = await measureStartup(ctx, all, result);
    const loads = workloads(path.join(tmp, 'plain.txt'), size);
    const times = await measureWorkloads(ctx, all, loads, result);
    for (const workload of loads) {
      for (const [variant, samples] of times.get(workload.name)!) {
        result.measurements.push(
          measurement(`${workload.name}: ${variant.name}`, samples, workload.expected),
        );
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
