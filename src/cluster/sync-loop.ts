import { Backoff } from '../core/backoff.js';
import type { Clock, TimerHandle } from '../core/clock.js';

/**
 * Runs `work` one at a time whenever poked: a poke during a run runs it once more afterwards, so nothing poked
 * is missed; a run that fails is tried again after a backoff (1 s doubling to 60 s), or at once when poked
 * (the connection came back). Nothing runs while nothing changes.
 */
export class SyncLoop {
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private retry: TimerHandle | null = null;
  private readonly backoff = new Backoff();

  constructor(
    private readonly work: () => Promise<void>,
    private readonly clock: Clock,
    private readonly onError: (error: Error) => void,
  ) {}

  poke(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.retry?.cancel();
    this.retry = null;
    this.running = this.run();
  }

  /** Resolves when no run is in flight (tests and shutdown wait on it). */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.retry?.cancel();
    await this.settled();
  }

  private async run(): Promise<void> {
    try {
      await this.work();
      this.backoff.reset();
    } catch (error) {
      this.onError(error instanceof Error ? error : new Error(String(error)));
      if (!this.stopped) this.retry = this.clock.after(this.backoff.next(), () => this.poke());
    } finally {
      this.running = null;
    }
    if (this.again && !this.stopped) {
      this.again = false;
      this.poke();
    }
  }
}
