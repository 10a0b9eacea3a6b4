import {
  bareDriver,
  burstyWorkload,
  fullSession,
  plainWorkload,
  type DetectorSample,
  type Workload,
} from './detector-runners.js';
import type { Benchmark, BenchContext, Result } from './types.js';
import { atLeast, formatBytes, formatMs, info, measurement, median, MiB, moreReps } from './util.js';

const FULL_BYTES = 200 * MiB;
const QUICK_BYTES = 20 * MiB;
const WARMUP_BYTES = 1 * MiB;
const REPETITIONS = 3;
const TARGET = 0.9;
/**
 * The TUI-like writer pauses this long every PAUSE_EVERY bytes. The screen parses only after 8 ms of quiet
 * (SCREEN_SETTLE_MS): with 5 ms pauses it settled once per run, at the end, so the detector never ran.
 * 10 ms: the parse of the backlog outlasts the pause; 20 ms: the pause hides most of it.
 */
const PAUSES_MS = [10, 20];
const PAUSE_EVERY = 2 * MiB;
/**
 * TUIs that never pause long: 4 ms after every 64 KiB frame (250 frames a second, far beyond a real TUI's 60),
 * never the 8 ms a settle needs; and 2 ms, to show where the quiet moments stop being enough. Every byte must
 * be parsed here (in the quiet moments): their ratio counts only when the screen model skipped nothing.
 * A quarter of the size (the pauses alone take 3 s per 50 MiB).
 */
const NEVER_LONG = [
  { pauseMs: 4, every: 64 * 1024 },
  { pauseMs: 2, every: 64 * 1024 },
];

interface Reader {
  name: string;
  run: (workload: Workload) => Promise<DetectorSample>;
}

function check(sample: DetectorSample, reader: Reader, workload: Workload, rep: number, result: Result) {
  const where = `${reader.name}, ${workload.name}, repetition ${rep + 1}`;
  if (sample.problem) result.problems.push(`${where}: ${sample.problem}`);
  if (sample.bytes !== workload.expected) {
    const diff = workload.expected - sample.bytes;
    result.problems.push(
      `${where}: ${diff > 0 ? 'lost' : 'got extra'} ${Math.abs(diff)} bytes (${sample.bytes} of ${workload.expected})`,
    );
  }
  if (sample.prompts === undefined) return;
  const wanted = workload.endsWithPrompt ? 1 : 0;
  if (sample.prompts !== wanted)
    result.problems.push(`${where}: ${sample.prompts} prompt event(s), expected ${wanted}`);
}

async function run(ctx: BenchContext): Promise<Result> {
  const size = ctx.quick ? QUICK_BYTES : FULL_BYTES;
  const reps = ctx.reps ?? REPETITIONS;
  const result: Result = {
    name: 'detector-throughput',
    params: { bytes: size, repetitions: reps, pausesMs: PAUSES_MS, pauseEveryBytes: PAUSE_EVERY },
    measurements: [],
    ratios: [],
    notes: [
      'both readers run in the bench process; time = spawn to exit; ratio = bare time / full time',
      `TUI: 64 KiB writes of cursor-addressed coloured rows, a pause every ${formatBytes(PAUSE_EVERY)}, ` +
        'a y/n prompt at the end (the detector must raise it once)',
    ],
    problems: [],
  };
  const readers: Reader[] = [
    { name: 'bare PtyProcess', run: (w) => bareDriver(ctx.root, w) },
    { name: 'TerminalSession + detector', run: (w) => fullSession(ctx.root, w) },
  ];
  const workloads = [
    plainWorkload(size),
    ...PAUSES_MS.map((ms) => burstyWorkload(size, ms, PAUSE_EVERY)),
    ...NEVER_LONG.map(({ pauseMs, every }) => ({
      ...burstyWorkload(size / 4, pauseMs, every),
      everyByte: true,
    })),
  ];
  for (const reader of readers) {
    for (const w of [plainWorkload(WARMUP_BYTES), burstyWorkload(WARMUP_BYTES, 10, PAUSE_EVERY)])
      await reader.run(w);
  }
  for (const workload of workloads) {
    const samples = new Map<string, DetectorSample[]>(readers.map((r) => [r.name, []]));
    ctx.log(`  ${workload.name}: ${formatBytes(size)} x ${reps}`);
    const current = (): Array<[number, number]> => {
      const [bare, full] = readers.map((r) => median(samples.get(r.name)!.map((x) => x.ms)));
      return [[bare! / full!, TARGET]];
    };
    for (let rep = 0; moreReps(rep, reps, rep === 0 ? [] : current()); rep++) {
      // Interleaved, and rotated so no reader always runs first.
      const order = readers.map((_, i) => readers[(i + rep) % readers.length]!);
      for (const reader of order) {
        const sample = await reader.run(workload);
        check(sample, reader, workload, rep, result);
        samples.get(reader.name)!.push(sample);
        ctx.log(`    ${reader.name}: ${formatMs(sample.ms)}${extras(sample)}`);
      }
    }
    report(result, workload, readers, samples);
  }
  return result;
}

function extras(sample: DetectorSample): string {
  if (sample.settles === undefined) return '';
  return (
    `, ${sample.settles} settles, ${sample.prompts} prompt(s), ${sample.statusEvents} status events, ` +
    `${formatBytes(sample.skippedBytes ?? 0)} skipped, tail ${formatMs(sample.tailMs ?? 0)}`
  );
}

function report(
  result: Result,
  workload: Workload,
  readers: Reader[],
  samples: Map<string, DetectorSample[]>,
): void {
  const [bare, full] = readers.map((r) => samples.get(r.name)!);
  for (const reader of readers) {
    const times = samples.get(reader.name)!.map((s) => s.ms);
    result.measurements.push(measurement(`${reader.name}, ${workload.name}`, times, workload.expected));
  }
  const ratio = median(bare!.map((s) => s.ms)) / median(full!.map((s) => s.ms));
  const med = (pick: (s: DetectorSample) => number) => median(full!.map(pick));
  const skipped = Math.max(...full!.map((s) => s.skippedBytes ?? 0));
  if (workload.everyByte && skipped > 0) {
    // Met by skipping does not count.
    const label = `full / bare throughput, ${workload.name} (${formatBytes(skipped)} SKIPPED: does not count)`;
    result.ratios.push({ ...atLeast(label, ratio, TARGET), meetsTarget: false });
  } else result.ratios.push(atLeast(`full / bare throughput, ${workload.name}`, ratio, TARGET));
  result.ratios.push(
    info(`MiB skipped by the screen model per run, ${workload.name}`, med((s) => s.skippedBytes ?? 0) / MiB),
  );
  result.ratios.push(
    info(
      `screen settles (= detector runs) per run, ${workload.name}`,
      med((s) => s.settles ?? 0),
    ),
  );
  result.ratios.push(
    info(
      `last byte -> screen settled (ms), ${workload.name}`,
      med((s) => s.tailMs ?? 0),
    ),
  );
  result.notes.push(
    `${workload.name}: full session medians: ${med((s) => s.settles ?? 0)} settles, ` +
      `${med((s) => s.prompts ?? 0)} prompt event(s), ${med((s) => s.statusEvents ?? 0)} status events, ` +
      `${formatBytes(med((s) => s.skippedBytes ?? 0))} skipped by the screen model`,
  );
}

export const detectorThroughput: Benchmark = {
  name: 'detector-throughput',
  noDataFolder: 'the terminal driver, screen model and detector alone: no store',
  description: 'the screen model and prompt detector on a large stream vs the bare PTY driver',
  run,
};
