/** The longest a timer can wait: Node's setTimeout takes at most 2^31 - 1 ms (about 24.8 days). */
export const MAX_TIMER_MS = 2 ** 31 - 1;
/** The same in whole seconds, as durations and `--prompt-ttl` are given. */
export const MAX_TIMER_SECONDS = Math.floor(MAX_TIMER_MS / 1000);

/** Durations as people write them in agent-bridge.yaml: 90s, 10m, 2h, 250ms, or a number of seconds. */
export function durationMs(value: number | string): number {
  if (typeof value === 'number') return value * 1000;
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)$/.exec(value);
  if (!match) throw new Error(`not a duration: ${value}`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] as 'ms' | 's' | 'm' | 'h'];
  return Number(match[1]) * unit;
}
