import type { Clock, TimerHandle } from '../core/clock.js';

/** Changes made by other processes (answers, chat input) are noticed this often. */
export const STORE_POLL_MS = 10;

/**
 * Calls back whenever another connection committed to the store: SQLite's data_version is a cheap counter, so
 * polling it often costs nearly nothing.
 */
export class StoreWatcher {
  private timer: TimerHandle | null = null;
  private lastVersion: number;

  constructor(
    private readonly dataVersion: () => number,
    private readonly clock: Clock,
    private readonly onChange: () => void,
  ) {
    this.lastVersion = dataVersion();
  }

  start(): void {
    this.timer = this.clock.after(STORE_POLL_MS, () => {
      let version: number;
      try {
        version = this.dataVersion();
      } catch {
        return; // the store was closed: the session is over
      }
      if (version !== this.lastVersion) {
        this.lastVersion = version;
        this.onChange();
      }
      this.start();
    });
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = null;
  }
}
