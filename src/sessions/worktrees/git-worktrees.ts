import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { GitWorktreeError, runGit, tryGit } from './git-command.js';
import {
  canonicalPath,
  excludeFromMainCheckout,
  recordBase,
  recordedBase,
  isInside,
  parseWorktreeList,
  safeWorktreeName,
  type ListedWorktree,
  type WorktreeInfo,
} from './worktree-paths.js';

export { GitWorktreeError } from './git-command.js';
export { safeWorktreeName, type WorktreeInfo } from './worktree-paths.js';

export interface WorktreeStatus {
  path: string;
  branch: string | null;
  exists: boolean;
  dirty: boolean;
  /** Lines of `git status --porcelain`: changed, staged and untracked files. */
  changes: number;
  /** Commits on the worktree's branch that its base branch lacks, when the base is known. */
  ahead: number | null;
}

export interface RemoveResult {
  removed: boolean;
  reason?: string;
  /** Set when deleteBranch was asked: whether the branch went too (it stays when not merged). */
  branchDeleted?: boolean;
}

interface RepoLayout {
  mainPath: string;
  commonDir: string;
  root: string;
}

/**
 * The git writes queued per repository folder (see GitWorktrees.serialized): git's worktree admin files and
 * .git/info/exclude are not safe for concurrent writers.
 */
const writesByRepo = new Map<string, Promise<void>>();

/** Git worktrees of one repository: one isolated checkout (and branch) per chat thread. */
export class GitWorktrees {
  private readonly repoDir: string;
  private readonly rootOption: string | undefined;
  private layoutPromise: Promise<RepoLayout> | undefined;

  constructor(repoDir: string, options: { root?: string } = {}) {
    this.repoDir = resolve(repoDir);
    this.rootOption = options.root === undefined ? undefined : resolve(options.root);
  }

  static async isRepository(dir: string): Promise<boolean> {
    if (!existsSync(dir)) return false;
    return (await tryGit(dir, ['rev-parse', '--is-inside-work-tree']))?.trim() === 'true';
  }

  /** `git worktree add [-b <branch>] <root>/<safe name> [base]`; returns the existing one when already there. */
  add(name: string, options: { branch?: string; base?: string } = {}): Promise<WorktreeInfo> {
    return this.serialized(async () => {
      const layout = await this.layout();
      const folderName = safeWorktreeName(name);
      const branch = options.branch ?? folderName;
      const path = join(layout.root, folderName);
      const existing = await this.find(path);
      if (existing && !existing.prunable) return this.reuseExisting(existing, options.branch);
      if (existing) await runGit(layout.mainPath, ['worktree', 'prune']);
      if (existsSync(path)) {
        throw new GitWorktreeError(
          `${path} already exists and is not a worktree of ${layout.mainPath}: move it away or pick another name`,
        );
      }
      await this.checkBranchName(layout, branch);
      const base = options.base ?? (await this.currentBase(layout));
      const branchExists =
        (await tryGit(layout.mainPath, ['show-ref', '--verify', `refs/heads/${branch}`])) !== null;
      if (!branchExists) await this.checkBase(layout, base);
      await excludeFromMainCheckout(layout.commonDir, layout.mainPath, layout.root);
      await mkdir(layout.root, { recursive: true });
      const args = branchExists ? [path, branch] : ['-b', branch, path, base];
      await this.gitWorktreeAdd(layout, args, branch);
      const added = await this.find(path);
      if (!added) {
        throw new GitWorktreeError(`git worktree add did not register ${path}: run git worktree list`);
      }
      await recordBase(layout.commonDir, added.path, base);
      return withoutMain(added);
    });
  }

  /** Linked worktrees (`git worktree list --porcelain` without the main checkout). */
  async list(): Promise<WorktreeInfo[]> {
    await this.layout(); // for its clear errors about a missing folder or repository
    return (await this.listAll()).filter((entry) => !entry.main).map(withoutMain);
  }

  async status(path: string): Promise<WorktreeStatus> {
    const layout = await this.layout();
    const entry = await this.find(path);
    const target = entry?.path ?? canonicalPath(path);
    const exists = existsSync(target);
    if (!entry && exists) {
      throw new GitWorktreeError(`${target} is not a worktree of ${layout.mainPath}: check the path`);
    }
    const ahead = entry ? await this.ahead(layout, entry) : null;
    const branch = entry?.branch ?? null;
    if (!exists) return { path: target, branch, exists, dirty: false, changes: 0, ahead };
    const porcelain = await runGit(target, ['status', '--porcelain']);
    const changes = porcelain.split('\n').filter((line) => line.length > 0).length;
    return { path: target, branch, exists, dirty: changes > 0, changes, ahead };
  }

  /** Removes a worktree, refusing one with uncommitted changes (or locked) unless forced. */
  remove(path: string, options: { force?: boolean; deleteBranch?: boolean } = {}): Promise<RemoveResult> {
    return this.serialized(async () => {
      const layout = await this.layout();
      const entry = await this.find(path);
      const refusal = await this.removalRefusal(layout, path, entry, options.force ?? false);
      if (refusal || !entry) return { removed: false, reason: refusal ?? `nothing to remove at ${path}` };
      const base = await recordedBase(layout.commonDir, entry.path);
      try {
        await this.detach(layout, entry, options.force ?? false);
      } catch (error) {
        return { removed: false, reason: (error as Error).message };
      }
      if (!options.deleteBranch || !entry.branch) return { removed: true };
      return { removed: true, ...(await this.deleteBranchIfMerged(layout, entry.branch, base)) };
    });
  }

  prune(): Promise<void> {
    return this.serialized(async () => {
      await runGit((await this.layout()).mainPath, ['worktree', 'prune']);
    });
  }

  /** Worktrees under our root or Claude Code's `.claude/worktrees/` that no live session claims. */
  async orphans(known: string[]): Promise<WorktreeInfo[]> {
    const layout = await this.layout();
    const claimed = new Set(known.map(canonicalPath));
    const folders = [layout.root, join(layout.mainPath, '.claude', 'worktrees')].map(canonicalPath);
    return (await this.list()).filter((info) => {
      const path = canonicalPath(info.path);
      return !claimed.has(path) && folders.some((folder) => path !== folder && isInside(path, folder));
    });
  }

  /** One git write at a time per repository, across every GitWorktrees of it (two threads starting at once). */
  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const run = (writesByRepo.get(this.repoDir) ?? Promise.resolve()).then(work, work);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    writesByRepo.set(this.repoDir, tail);
    void tail.then(() => {
      if (writesByRepo.get(this.repoDir) === tail) writesByRepo.delete(this.repoDir);
    });
    return run;
  }

  /** Finds the main checkout and git's common dir once; forgets a failure so a later `git init` is seen. */
  private layout(): Promise<RepoLayout> {
    this.layoutPromise ??= this.readLayout().catch((error: unknown) => {
      this.layoutPromise = undefined;
      throw error;
    });
    return this.layoutPromise;
  }

  private async readLayout(): Promise<RepoLayout> {
    if (!existsSync(this.repoDir)) {
      throw new GitWorktreeError(`${this.repoDir} does not exist: check the repository path`);
    }
    const commonDir = (await runGit(this.repoDir, ['rev-parse', '--git-common-dir'])).trim();
    const main = (await this.listAll()).find((entry) => entry.main);
    if (!main) throw new GitWorktreeError(`git worktree list found no main checkout in ${this.repoDir}`);
    const mainPath = canonicalPath(main.path);
    const root = this.rootOption ?? join(mainPath, '.agent-bridge', 'worktrees');
    return { mainPath, commonDir: canonicalPath(resolve(this.repoDir, commonDir)), root };
  }

  private async listAll(): Promise<ListedWorktree[]> {
    return parseWorktreeList(await runGit(this.repoDir, ['worktree', 'list', '--porcelain']));
  }

  private async find(path: string): Promise<ListedWorktree | undefined> {
    const target = canonicalPath(path);
    return (await this.listAll()).find((entry) => canonicalPath(entry.path) === target);
  }

  private reuseExisting(existing: ListedWorktree, wantedBranch: string | undefined): WorktreeInfo {
    if (wantedBranch !== undefined && existing.branch !== wantedBranch) {
      throw new GitWorktreeError(
        `${existing.path} already holds branch ${existing.branch ?? '(detached)'}, not ${wantedBranch}: ` +
          'remove that worktree first or pick another name',
      );
    }
    return withoutMain(existing);
  }

  private async checkBranchName(layout: RepoLayout, branch: string): Promise<void> {
    const valid =
      !branch.startsWith('-') && (await tryGit(layout.mainPath, ['check-ref-format', '--branch', branch]));
    if (!valid) {
      throw new GitWorktreeError(`${JSON.stringify(branch)} is not a valid branch name: pick another`);
    }
  }

  /** The main checkout's branch (or commit when detached): what a new worktree branches from by default. */
  private async currentBase(layout: RepoLayout): Promise<string> {
    const branch = await tryGit(layout.mainPath, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
    const hasCommit = await tryGit(layout.mainPath, ['rev-parse', '--verify', 'HEAD^{commit}']);
    if (!hasCommit) {
      throw new GitWorktreeError(
        `${layout.mainPath} has no commits yet: make a first commit there or set isolation: none`,
      );
    }
    return branch?.trim() || hasCommit.trim();
  }

  private async checkBase(layout: RepoLayout, base: string): Promise<void> {
    if (!(await tryGit(layout.mainPath, ['rev-parse', '--verify', `${base}^{commit}`]))) {
      throw new GitWorktreeError(
        `base ${base} not found in ${layout.mainPath}: use an existing branch, tag or commit`,
      );
    }
  }

  private async gitWorktreeAdd(layout: RepoLayout, args: string[], branch: string): Promise<void> {
    try {
      await runGit(layout.mainPath, ['worktree', 'add', ...args]);
    } catch (error) {
      const stderr = error instanceof GitWorktreeError ? error.stderr : '';
      const elsewhere = /already (?:checked out|used by worktree) at '([^']+)'/.exec(stderr);
      if (!elsewhere) throw error;
      throw new GitWorktreeError(
        `branch ${branch} is already checked out in ${elsewhere[1]}: remove that worktree or use another branch`,
        stderr,
      );
    }
  }

  private async ahead(layout: RepoLayout, entry: ListedWorktree): Promise<number | null> {
    const base = entry.main ? null : await recordedBase(layout.commonDir, entry.path);
    const tip = entry.branch ? `refs/heads/${entry.branch}` : entry.head;
    if (!base || !tip) return null;
    const count = await tryGit(layout.mainPath, ['rev-list', '--count', `${base}..${tip}`]);
    return count === null ? null : Number.parseInt(count.trim(), 10);
  }

  private async removalRefusal(
    layout: RepoLayout,
    path: string,
    entry: ListedWorktree | undefined,
    force: boolean,
  ): Promise<string | null> {
    if (!entry) {
      return existsSync(path)
        ? `${path} is not a worktree of ${layout.mainPath}: remove it by hand if it is yours`
        : null;
    }
    if (entry.main) return `${entry.path} is the main checkout: only linked worktrees can be removed`;
    if (force) return null;
    if (entry.locked) return `${entry.path} is locked: run git worktree unlock on it, or remove with force`;
    const { exists, changes } = await this.status(entry.path);
    if (!exists || changes === 0) return null;
    const files = changes === 1 ? 'file' : 'files';
    return `${entry.path} has uncommitted changes in ${changes} ${files}: commit or discard them, or remove with force`;
  }

  /** Deletes the folder and git's record of it; a folder already gone only needs pruning. */
  private async detach(layout: RepoLayout, entry: ListedWorktree, force: boolean): Promise<void> {
    if (existsSync(entry.path)) {
      // A second --force is git's way of overriding a lock.
      const forceFlags = force ? (entry.locked ? ['--force', '--force'] : ['--force']) : [];
      await runGit(layout.mainPath, ['worktree', 'remove', ...forceFlags, entry.path]);
    } else if (entry.locked) {
      await runGit(layout.mainPath, ['worktree', 'unlock', entry.path]);
    }
    await runGit(layout.mainPath, ['worktree', 'prune']);
  }

  private async deleteBranchIfMerged(
    layout: RepoLayout,
    branch: string,
    knownBase: string | null,
  ): Promise<Pick<RemoveResult, 'reason' | 'branchDeleted'>> {
    const base = knownBase ?? (await this.currentBase(layout));
    const kept = (why: string) => ({ branchDeleted: false, reason: `kept branch ${branch}: ${why}` });
    if (base === branch) return kept('it is the base branch');
    const mergeCheck = ['merge-base', '--is-ancestor', `refs/heads/${branch}`, base];
    if ((await tryGit(layout.mainPath, mergeCheck)) === null) return kept(`it is not merged into ${base}`);
    // -D because `git branch -d` judges "merged" against HEAD or the upstream, not against our base.
    const deleted = await tryGit(layout.mainPath, ['branch', '-D', branch]);
    return deleted === null ? kept('git branch -D failed') : { branchDeleted: true };
  }
}

function withoutMain({ main: _main, ...info }: ListedWorktree): WorktreeInfo {
  return info;
}
