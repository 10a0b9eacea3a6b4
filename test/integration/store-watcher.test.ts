// Processes learn of each other's commits from the store's file notifications: nothing polls while all is quiet.
import { afterEach, describe, expect, it } from 'vitest';
import { StoreWatcher } from '../../src/sessions/store-watcher.js';
import { openStore, type Store } from '../../src/store/store.js';
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
