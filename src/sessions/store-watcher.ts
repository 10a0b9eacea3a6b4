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

/**
 * One watcher per store connection, shared by every session of the process: idle cost stays flat however many
 * sessions run (each used to poll on its own).
 */
export class SharedStoreChanges {
  private static readonly byStore = new WeakMap<object, SharedStoreChanges>();
  private readonly listeners = new Set<() => void>();
  private watcher: StoreWatcher | null = null;

  private constructor(
    private readonly store: { dataVersion(): number },
    private readonly clock: Clock,
  ) {}

  static for(store: { dataVersion(): number }, clock: Clock): SharedStoreChanges {
    let shared = SharedStoreChanges.byStore.get(store);
    if (!shared) {
      shared = new SharedStoreChanges(store, clock);
      SharedStoreChanges.byStore.set(store, shared);
    }
    return shared;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    if (!this.watcher) {
      this.watcher = new StoreWatcher(
        () => this.store.dataVersion(),
        this.clock,
        () => this.listeners.forEach((l) => l()),
      );
      this.watcher.start();
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) {
        this.watcher?.stop();
        this.watcher = null;
      }
    };
  }
}
