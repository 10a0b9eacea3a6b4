/** Helpers shared by the latency and detector benchmarks: agent-bridge's built modules, percentiles, waits. */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Ratio } from './types.js';
import { atMost, info } from './util.js';

/**
 * A module of the built agent-bridge under `root` (dist/, so `--root` can measure another checkout). Typed
 * by the caller with `typeof import`-style module types from src/ (`import type * as M from '../src/...'`).
 */
export async function importDist<T>(root: string, modulePath: string): Promise<T> {
  return (await import(pathToFileURL(path.join(root, 'dist', modulePath)).href)) as T;
}

/** The p-th percentile (0–100) by nearest rank; NaN for no values. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

/**
 * Wall-clock milliseconds with sub-millisecond resolution, comparable with another process's clock on this
 * machine (bash's $EPOCHREALTIME): performance.timeOrigin + performance.now().
 */
export function wallNow(): number {
  return performance.timeOrigin + performance.now();
}

/** How far wallNow() is from Date.now() (should be < 2 ms; more means the clock stepped during the run). */
export function wallClockSkew(): number {
  return Math.abs(wallNow() - Date.now());
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves with `promise`, or rejects after `ms` with `what` in the message. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Polls `check` every `everyMs` until it returns a value (not undefined) or `ms` pass. */
export async function waitUntil<T>(check: () => T | undefined, ms: number, what: string, everyMs = 1) {
  const deadline = performance.now() + ms;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** p50 (against a target when given), p90 and p99 of latencies, as rows of the ratio table (values in ms). */
export function latencyRows(label: string, samples: number[], p50Target?: number): Ratio[] {
  const p50 = percentile(samples, 50);
  return [
    p50Target === undefined ? info(`${label} p50 (ms)`, p50) : atMost(`${label} p50 (ms)`, p50, p50Target),
    info(`${label} p90 (ms)`, percentile(samples, 90)),
    info(`${label} p99 (ms)`, percentile(samples, 99)),
  ];
}

export function fmt(ms: number): string {
  return Number.isFinite(ms) ? ms.toFixed(1) : 'n/a';
}
