// Processes learn of each other's commits from the store's file notifications: nothing polls while all is quiet.
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LOOK_AGAIN_MS, StoreWatcher } from '../../src/sessions/store-watcher.js';
import { DATABASE_FILE, openStore, type Store } from '../../src/store/store.js';
import { FakeClock } from '../support/fake-clock.js';
import { tempStore, type TempStore } from '../support/temp-store.js';
import { waitFor } from '../support/wait.js';

let watched: TempStore;
let other: Store;
let watcher: StoreWatcher | undefined;

afterEach(() => {
  watcher?.stop();
  other?.close();
  watched?.remove();
});

describe('StoreWatcher', () => {
  it("notices another connection's commit while its clock stands still, and its own commits not at all", async () => {
    watched = tempStore();
    other = openStore({ dir: watched.dir });
    let changes = 0;
    watcher = new StoreWatcher(watched, watched.clock, () => changes++);
    watcher.start();
    // Nothing waits on the clock while nothing happens: no timer to poll with.
    expect(watched.clock.pendingTimers).toBe(0);

    other.channels.setState('test', 'key', 'one');
    await waitFor('the commit noticed', () => changes === 1);

    watched.channels.setState('test', 'key', 'mine');
    other.channels.setState('test', 'key', 'two');
    await waitFor('the second commit noticed', () => changes === 2);
    // A write by the watched connection itself is not news to it (data_version counts others' commits).
    watched.channels.setState('test', 'key', 'mine again');
    watched.clock.advance(1_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    watched.clock.advance(1_000);
    expect(changes).toBe(2);
  });

  it('sees a commit made visible well after its write was noticed (a writer descheduled in between)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ab-watch-'));
    const clock = new FakeClock();
    let version = 1;
    let changes = 0;
    watcher = new StoreWatcher({ dir, dataVersion: () => version }, clock, () => changes++);
    watcher.start();
    try {
      // The WAL file is written: the kernel says so; the commit is not visible yet.
      appendFileSync(path.join(dir, `${DATABASE_FILE}-wal`), 'frames');
      await waitFor('the write noticed', () => clock.pendingTimers > 0);
      clock.advance(LOOK_AGAIN_MS[0] + 5);
      expect(changes).toBe(0);
      // Published in shared memory (no notification) only now, 20 ms after the write.
      version = 2;
      clock.advance(Math.max(...LOOK_AGAIN_MS));
      expect(changes).toBe(1);
      // Then nothing more is looked at: idle stays idle.
      expect(clock.pendingTimers).toBe(0);
    } finally {
      watcher.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops listening when stopped', async () => {
    watched = tempStore();
    other = openStore({ dir: watched.dir });
    let changes = 0;
    watcher = new StoreWatcher(watched, watched.clock, () => changes++);
    watcher.start();
    watcher.stop();
    other.channels.setState('test', 'key', 'one');
    await new Promise((resolve) => setTimeout(resolve, 50));
    watched.clock.advance(1_000);
    expect(changes).toBe(0);
  });
});
