// Waiting on a fake server's state, for the fakes of every platform.

/**
 * Waits for a predicate over a fake's state: re-checked on every change the fake reports and every 10 ms; a
 * timeout's error says what the fake saw last (`summary`); closing the fake ends every pending wait.
 */
export class ChangeWaiters {
  private readonly waiters = new Set<(error?: Error) => void>();

  constructor(
    private readonly onChange: (listener: () => void) => () => void,
    private readonly summary: () => string,
  ) {}

  waitFor(predicate: () => boolean, timeoutMs: number, what: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const finish = (error?: Error): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearInterval(poll);
        unsubscribe();
        this.waiters.delete(finish);
        if (error) reject(error);
        else resolve();
      };
      const probe = (): void => {
        try {
          if (predicate()) finish();
        } catch (error) {
          finish(error instanceof Error ? error : new Error(String(error)));
        }
      };
      const timer = setTimeout(
        () => finish(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; ${this.summary()}`)),
        timeoutMs,
      );
      const poll = setInterval(probe, 10);
      const unsubscribe = this.onChange(probe);
      this.waiters.add(finish);
      probe();
    });
  }

  /** Every pending wait fails with `message`. */
  closeAll(message: string): void {
    for (const finish of [...this.waiters]) finish(new Error(message));
  }
}
