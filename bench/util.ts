import { spawn } from 'node:child_process';
import path from 'node:path';
import type { Measurement, Ratio } from './types.js';

export const MiB = 1024 * 1024;

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function measurement(label: string, samplesMs: number[], bytes?: number): Measurement {
  const medianMs = median(samplesMs);
  const result: Measurement = { label, samplesMs: samplesMs.map(round2), medianMs: round2(medianMs) };
  if (bytes !== undefined) {
    result.bytes = bytes;
    result.mbPerSec = round2(bytes / 1e6 / (medianMs / 1000));
  }
  return result;
}

/** A ratio with a lower bound (throughput: higher is better). */
export function atLeast(label: string, value: number, bound: number): Ratio {
  return { label, value: round3(value), target: `>= ${bound}`, meetsTarget: value >= bound };
}

/** A ratio with an upper bound (time: lower is better). */
export function atMost(label: string, value: number, bound: number): Ratio {
  return { label, value: round3(value), target: `<= ${bound}`, meetsTarget: value <= bound };
}

export function info(label: string, value: number): Ratio {
  return { label, value: round3(value), target: 'info', meetsTarget: null };
}

export function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

export function agentBridgeBin(root: string): string {
  return path.join(root, 'bin', 'agent-bridge.js');
}

export interface ChildRun {
  ms: number;
  /** Bytes read from the child's stdout (a pipe, drained as fast as it comes). */
  stdoutBytes: number;
  /** stdout's text when captureStdout was set, else ''. */
  stdout: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** A run that takes longer than this is hung: killed and reported, so the bench always ends. */
export const RUN_TIMEOUT_MS = 10 * 60_000;

export interface RunOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Keep stdout's text (small outputs only) in ChildRun.stdout. */
  captureStdout?: boolean;
}

/** Spawns a process with stdin from /dev/null and times it from spawn to exit with its pipes closed. */
export function runTimed(command: string, args: string[], options: RunOptions): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: RUN_TIMEOUT_MS,
      killSignal: 'SIGKILL',
    });
    let stdoutBytes = 0;
    const stderr: Buffer[] = [];
    const stdout: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (options.captureStdout) stdout.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code, signal) =>
      resolve({
        ms: performance.now() - started,
        stdoutBytes,
        stdout: Buffer.concat(stdout).toString('utf8'),
        code,
        signal,
        stderr: Buffer.concat(stderr).toString('utf8').slice(0, 2000),
      }),
    );
  });
}

/** Describes a child that did not exit cleanly, or null when it did. */
export function exitProblem(what: string, run: ChildRun): string | null {
  if (run.code === 0) return null;
  const how = run.signal ? `signal ${run.signal}` : `exit code ${run.code}`;
  return `${what}: ${how}${run.stderr ? `; stderr: ${run.stderr.trim()}` : ''}`;
}

export function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`;
}

export function formatBytes(bytes: number): string {
  if (bytes >= MiB) return `${(bytes / MiB).toFixed(bytes % MiB === 0 ? 0 : 1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} B`;
}

/** A figure this close to its target (5%) is measured at least NEAR_TARGET_REPS times before it is judged. */
export const NEAR_TARGET_REPS = 5;

export function nearTarget(value: number, target: number): boolean {
  return Number.isFinite(value) && Math.abs(value - target) / target <= 0.05;
}

/** Whether another repetition is due: fewer than `reps` so far, or a figure sits within 5% of its target. */
export function moreReps(done: number, reps: number, figures: Array<[number, number]>): boolean {
  if (done < reps) return true;
  return done < NEAR_TARGET_REPS && figures.some(([value, target]) => nearTarget(value, target));
}

/** A host's log for a problem's text: its end, on one line, with the web UI's token left out. */
export function hostLogTail(log: string): string {
  const text = log
    .trim()
    .replace(/([?&]token=)[^\s&]+/g, '$1…')
    .replace(/\s*\n\s*/g, ' | ');
  return text ? `; host log: ${text.slice(-600)}` : '';
}
