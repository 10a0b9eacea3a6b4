import { rm } from 'node:fs/promises';
import { agentBridgeRelay, minimalRelay, type Sample, type SlowReader } from './relay-runners.js';
import type { Benchmark, BenchContext, Result } from './types.js';
import { formatBytes, formatMs, info, measurement, median } from './util.js';

/**
 * A slow terminal (an SSH link, a busy emulator): agent-bridge's stdout is read at a fixed, low rate, so the
 * relay is paused (backpressure) when the child exits. The whole output must still arrive; the time it takes
 * is compared with the time the reader alone needs (size / rate).
 */
const SIZE = 256 * 1024;
/** 4 KiB every 50 ms: 80 KiB/s. */
const SLOW: SlowReader = { chunkBytes: 4096, delayMs: 50 };
const READ_BYTES_PER_SEC = (SLOW.chunkBytes * 1000) / SLOW.delayMs;
const REPETITIONS = { quick: 2, full: 3 };

interface Reader {
  name: string;
  reference: boolean;
  run: (script: string) => Promise<Sample>;
}

function readers(ctx: BenchContext, home: string): Reader[] {
  return [
    {
      name: 'minimal relay',
      reference: true,
      run: (script) => minimalRelay(script, ctx.root, SLOW),
    },
    {
      name: 'agent-bridge --no-record',
      reference: false,
      run: (script) => agentBridgeRelay(script, { root: ctx.root, home, record: false, slow: SLOW }),
    },
    {
      name: 'agent-bridge (recording)',
      reference: false,
      run: (script) => agentBridgeRelay(script, { root: ctx.root, home, record: true, slow: SLOW }),
    },
  ];
}

function judge(sample: Sample, reader: Reader, rep: number, result: Result): void {
  const where = `${reader.name}, repetition ${rep + 1}`;
  if (sample.problem) result.problems.push(`${where}: ${sample.problem}`);
  const lost = SIZE - sample.bytes;
  if (lost !== 0) {
    const line = `${where}: LOST ${lost} bytes at exit with a slow reader (got ${sample.bytes} of ${SIZE})`;
    if (reader.reference) result.notes.push(`reference reader ${line} (node-pty destroys a paused socket)`);
    else result.problems.push(line);
  }
  if (sample.recordedBytes !== undefined && sample.recordedBytes !== SIZE) {
    result.problems.push(`${where}: the RECORDING has ${sample.recordedBytes} of ${SIZE} bytes`);
  }
}

async function run(ctx: BenchContext): Promise<Result> {
  const reps = ctx.reps ?? (ctx.quick ? REPETITIONS.quick : REPETITIONS.full);
  const result: Result = {
    name: 'slow-reader',
    params: { bytes: SIZE, slowReader: SLOW, repetitions: reps },
    measurements: [],
    ratios: [],
    notes: [
      `stdout read ${formatBytes(SLOW.chunkBytes)} every ${SLOW.delayMs} ms (${formatBytes(READ_BYTES_PER_SEC)}/s); ` +
        `the reader alone needs ${formatMs((SIZE / READ_BYTES_PER_SEC) * 1000)}`,
    ],
    problems: [],
  };
  const home = await ctx.home();
  const script = `head -c ${SIZE} /dev/zero | tr '\\0' a`;
  const all = readers(ctx, home);
  const times = new Map<Reader, number[]>(all.map((r) => [r, []]));
  try {
    for (let rep = 0; rep < reps; rep++) {
      for (const reader of all.map((_, i) => all[(i + rep) % all.length]!)) {
        const sample = await reader.run(script);
        judge(sample, reader, rep, result);
        times.get(reader)!.push(sample.ms);
        ctx.log(
          `  #${rep + 1} ${reader.name.padEnd(26)} ${formatMs(sample.ms).padStart(9)}  ${sample.bytes} B`,
        );
      }
    }
  } finally {
    await rm(home, { recursive: true, force: true });
  }
  const ideal = (SIZE / READ_BYTES_PER_SEC) * 1000;
  for (const [reader, samples] of times) {
    result.measurements.push(measurement(reader.name, samples, SIZE));
    result.ratios.push(info(`${reader.name}: time vs the reader alone`, median(samples) / ideal));
  }
  return result;
}

export const slowReader: Benchmark = {
  name: 'slow-reader',
  description:
    'a slow terminal: stdout read at 80 KiB/s in 4 KiB reads, nothing may be lost when the child exits',
  run,
};
