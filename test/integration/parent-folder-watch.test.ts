import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ParentFolderWatch } from '../../src/sessions/worktrees/parent-folder-watch.js';
import { waitFor } from '../support/wait.js';

let dir: string;
let watch: ParentFolderWatch;
let calls: string[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-folder-watch-'));
  calls = [];
  watch = new ParentFolderWatch((folder) => calls.push(folder));
});

afterEach(() => {
  watch.close();
  rmSync(dir, { recursive: true, force: true });
});

function folder(...parts: string[]): string {
  const made = path.join(dir, ...parts);
  mkdirSync(made, { recursive: true });
  return made;
}

describe('ParentFolderWatch (inotify, no polling)', () => {
  it('tells of a watched path removed from outside', async () => {
    const tree = folder('worktrees', 'thread-1');
    watch.set([tree]);
    rmSync(tree, { recursive: true });
    await waitFor('the removal noticed', () => calls.length > 0);
  });

  it('tells when the folder holding the paths goes with them', async () => {
    const tree = folder('worktrees', 'thread-1');
    watch.set([tree]);
    rmSync(path.join(dir, 'worktrees'), { recursive: true });
    await waitFor('the removal noticed', () => calls.length > 0);
  });

  it('tells at once of a path whose folder is gone already', async () => {
    watch.set([path.join(dir, 'never-made', 'thread-1')]);
    await waitFor('the missing folder reported', () => calls.length > 0);
  });

  it('watches only the folders of the paths it was last given', async () => {
    const first = folder('a', 'thread-1');
    const second = folder('b', 'thread-2');
    watch.set([first, second]);
    watch.set([second]);
    rmSync(first, { recursive: true });
    rmSync(second, { recursive: true });
    await waitFor('the second removal noticed', () => calls.length > 0);
    expect(new Set(calls)).toEqual(new Set([path.dirname(second)]));
    watch.set([]);
    const before = calls.length;
    rmSync(path.join(dir, 'b'), { recursive: true });
    // Events flow in order through one loop: once a fresh watch reports, a stale one would have too.
    const probe = folder('c', 'thread-3');
    watch.set([probe]);
    rmSync(probe, { recursive: true });
    await waitFor('the probe noticed', () => calls.length > before);
    expect(new Set(calls.slice(before))).toEqual(new Set([path.dirname(probe)]));
  });
});
