/** What every benchmark module exports, and what it hands back to bench/run.ts. */

export interface BenchContext {
  /** Smaller sizes and fewer repetitions: a smoke run, not numbers to quote. */
  quick: boolean;
  /** Repetitions per measurement from --reps; each benchmark has its own default when absent. */
  reps?: number;
  /** The repository root (bin/agent-bridge.js lives under it). */
  root: string;
  /** Progress lines (stderr), so stdout keeps only the tables. */
  log: (line: string) => void;
  /** Which data folder this pass runs against: every benchmark that touches one runs on both. */
  dataFolder: 'empty' | 'history';
  /**
   * A new AGENT_BRIDGE_HOME for this pass: empty, or a private copy of the history folder (bench/history.ts).
   * Removed after the benchmark.
   */
  home(): Promise<string>;
}

/** One thing timed several times; times are wall-clock milliseconds. */
export interface Measurement {
  label: string;
  samplesMs: number[];
  medianMs: number;
  /** Bytes moved per run (throughput benchmarks only). */
  bytes?: number;
  /** bytes / median, in MB/s (10^6 bytes per second). */
  mbPerSec?: number;
}

/** A ratio against a baseline measured in the same run: never an absolute threshold. */
export interface Ratio {
  label: string;
  value: number;
  /** Human-readable target, e.g. ">= 0.9", or "info" when there is none. */
  target: string;
  /** null when there is no target. Missing a target is reported, never fatal. */
  meetsTarget: boolean | null;
}

export interface Result {
  name: string;
  params: Record<string, unknown>;
  measurements: Measurement[];
  ratios: Ratio[];
  /** Context needed to read the numbers. */
  notes: string[];
  /** Correctness problems found while measuring (lost bytes, bad exit codes): printed loudly. */
  problems: string[];
}

export interface Benchmark {
  name: string;
  description: string;
  /** Runs once only, and says why: nothing it measures opens a data folder. */
  noDataFolder?: string;
  run(ctx: BenchContext): Promise<Result>;
}
