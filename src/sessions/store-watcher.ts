import { watch, type FSWatcher } from 'node:fs';
import type { Clock, TimerHandle } from '../core/clock.js';
import { DATABASE_FILE } from '../store/store.js';

/**
 * Looks again after a write was noticed, this long after it. SQLite writes a commit's frames to the WAL file,
 * then publishes them in the shared-memory index (a write to mapped memory: no notification) a moment later,
 * so the file's change can arrive before the commit is visible; a writer descheduled in between (a loaded
 * machine) makes that moment long. A change missed here would wait for the next write, however long.
 */
export const LOOK_AGAIN_MS = [15, 60, 250, 1000] as const;

/** Where file notifications do not work (some network file systems): look this often instead. */
export const FALLBACK_POLL_MS = 250;

export interface WatchedStore {
  /** The data folder holding the database file. */
  dir: string;
  dataVersion(): number;
}

/**
 * Calls back whenever another connection committed to the store. The kernel says when the database's files
 * change (inotify, FSEvents), and SQLite's data_version says whether that was someone else's commit: an idle
 * store costs nothing, and a busy one a cheap counter read per write.
 */
export class StoreWatcher {
  private fileWatcher: FSWatcher | null = null;
  private fallback: TimerHandle | null = null;
  /** The next look again after a notice (LOOK_AGAIN_MS). */
  private lookingAgain: TimerHandle | null = null;
  private checkQueued = false;
  private lastVersion: number;
  private stopped = false;

  constructor(
    private readonly store: WatchedStore,
    private readonly clock: Clock,
    private readonly onChange: () => void,
  ) {
    this.lastVersion = store.dataVersion();
  }

  start(): void {
    this.stopped = false;
    try {
      this.fileWatcher = watch(this.store.dir, { persistent: false }, (_event, file) => {
        if (!file || String(file).startsWith(DATABASE_FILE)) this.noticed();
      });
      this.fileWatcher.on('error', () => this.pollInstead());
    } catch {
      this.pollInstead();
    }
  }

  stop(): void {
    this.stopped = true;
    this.fileWatcher?.close();
    this.fileWatcher = null;
    this.fallback?.cancel();
    this.lookingAgain?.cancel();
  }

  /** A database file changed: look now (once per turn of the event loop), and again as it settles. */
  private noticed(): void {
    if (!this.checkQueued) {
      this.checkQueued = true;
      setImmediate(() => {
        this.checkQueued = false;
        this.check();
      });
    }
    this.lookingAgain?.cancel();
    this.lookAgain(0);
  }

  /** The `step`th look again after the last notice (LOOK_AGAIN_MS), then the next; a new notice starts over. */
  private lookAgain(step: number): void {
    const at = LOOK_AGAIN_MS[step];
    if (at === undefined) return;
    this.lookingAgain = this.clock.after(at - (LOOK_AGAIN_MS[step - 1] ?? 0), () => {
      this.check();
      this.lookAgain(step + 1);
    });
  }

  private check(): void {
    if (this.stopped) return;
    let version: number;
    try {
      version = this.store.dataVersion();
    } catch {
      return; // the store was closed: its owner is shutting down
    }
    if (version === this.lastVersion) return;
    this.lastVersion = version;
    this.onChange();
  }

  private pollInstead(): void {
    this.fileWatcher?.close();
    this.fileWatcher = null;
    const tick = () => {
      if (this.stopped) return;
      this.check();
      this.fallback = this.clock.after(FALLBACK_POLL_MS, tick);
    };
    tick();
  }
}

/**
 * One watcher per store connection, shared by every session of the process: its cost stays flat however many
 * sessions run.
 */
export class SharedStoreChanges {
  private static readonly byStore = new WeakMap<object, SharedStoreChanges>();
  private readonly listeners = new Set<() => void>();
  private watcher: StoreWatcher | null = null;

  private constructor(
    private readonly store: WatchedStore,
    private readonly clock: Clock,
  ) {}

  static for(store: WatchedStore, clock: Clock): SharedStoreChanges {
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
      this.watcher = new StoreWatcher(this.store, this.clock, () => this.listeners.forEach((l) => l()));
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
