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

/**
 * Resolves when one of `listeners` is next called, or after `timeoutMs`, whichever comes first: the waiter
 * joins the list, and leaves it (and its timer ends) either way.
 */
export function nextCallOr<A extends unknown[]>(
  clock: Clock,
  listeners: Array<(...args: A) => void>,
  timeoutMs: number,
): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      timer.cancel();
      const at = listeners.indexOf(done);
      if (at >= 0) listeners.splice(at, 1);
      resolve();
    };
    const timer = clock.after(timeoutMs, done);
    listeners.push(done);
  });
}
