import type { Clock } from './clock.js';

/**
 * At most `limit` events per `windowMs` for each key, over a sliding window (seed 004: 10 callbacks a minute
 * per session). allow() counts the event only when it is allowed.
 */
export class WindowLimiter {
  private readonly events = new Map<string, number[]>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly clock: Clock,
  ) {}

  /** How many events of `key` the window holds now, without counting a new one. */
  count(key: string): number {
    const now = this.clock.now();
    return (this.events.get(key) ?? []).filter((at) => now - at < this.windowMs).length;
  }

  /** True while `key` has used up its allowance. */
  exhausted(key: string): boolean {
    return this.count(key) >= this.limit;
  }

  allow(key: string): boolean {
    const now = this.clock.now();
    const recent = (this.events.get(key) ?? []).filter((at) => now - at < this.windowMs);
    if (recent.length >= this.limit) {
      this.events.set(key, recent);
      return false;
    }
    recent.push(now);
    this.events.set(key, recent);
    return true;
  }
}

/**
 * Spaces work per key at least `intervalMs` apart, in order (Telegram: one message a second per chat).
 * Keys do not wait for each other.
 */
export class KeyedSpacer {
  private readonly tails = new Map<string, Promise<unknown>>();
  private readonly lastRun = new Map<string, number>();

  constructor(
    private readonly intervalMs: number,
    private readonly clock: Clock,
  ) {}

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous.then(async () => {
      const wait = (this.lastRun.get(key) ?? -Infinity) + this.intervalMs - this.clock.now();
      if (wait > 0) await this.clock.sleep(wait);
      this.lastRun.set(key, this.clock.now());
      return work();
    });
    const settled = next.catch(() => undefined);
    this.tails.set(key, settled);
    void settled.then(() => {
      if (this.tails.get(key) === settled) this.tails.delete(key);
    });
    return next;
  }
}
