/** Time as a dependency: every timeout, TTL, batch window and rate limit takes a Clock so tests need no sleeps. */
export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `fn` once after `ms`; the handle cancels it. */
  after(ms: number, fn: () => void): TimerHandle;
  /** Resolves after `ms`. */
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  after(ms, fn) {
    const timer = setTimeout(fn, ms);
    timer.unref?.();
    return { cancel: () => clearTimeout(timer) };
  },
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
