import { watch, type FSWatcher } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Learns that some folders may be gone without looking for them: one `fs.watch` (inotify) on each folder
 * that holds them, so a folder removed from outside (`git worktree remove`, `rm -rf`) is noticed at once and
 * nothing runs while nothing changes. `changed(folder)` is called on any event in a watched folder (the caller checks
 * which paths are gone: a folder added next to them calls it too), and when a watched folder itself goes.
 */
export class ParentFolderWatch {
  private readonly watchers = new Map<string, FSWatcher>();

  constructor(private readonly changed: (folder: string) => void) {}

  /** From now on, watches exactly the folders holding `paths`. */
  set(paths: Iterable<string>): void {
    const wanted = new Set([...paths].map((p) => dirname(p)));
    for (const [folder, watcher] of this.watchers) {
      if (wanted.has(folder)) continue;
      watcher.close();
      this.watchers.delete(folder);
    }
    for (const folder of wanted) if (!this.watchers.has(folder)) this.watchFolder(folder);
  }

  close(): void {
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }

  private watchFolder(folder: string): void {
    let watcher: FSWatcher;
    try {
      // Not persistent: the watch alone never keeps agent-bridge running.
      watcher = watch(folder, { persistent: false }, () => this.changed(folder));
    } catch {
      queueMicrotask(() => this.changed(folder)); // the folder is gone already: so are the paths in it
      return;
    }
    watcher.on('error', () => {
      watcher.close();
      if (this.watchers.get(folder) === watcher) this.watchers.delete(folder);
      this.changed(folder);
    });
    this.watchers.set(folder, watcher);
  }
}
