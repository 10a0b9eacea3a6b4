import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { git, makeRepo as makeRepoAt } from '../support/git-repo.js';
import { GitWorktrees, safeWorktreeName } from '../../src/sessions/worktrees/git-worktrees.js';

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'ab-worktrees-')));
  temps.push(dir);
  return dir;
}

function makeRepo(): string {
  return makeRepoAt(join(tempDir(), 'repo'));
}

function commitFile(dir: string, file: string, text: string): void {
  writeFileSync(join(dir, file), text);
  git(dir, 'add', file);
  git(dir, 'commit', '-q', '-m', `add ${file}`);
}

describe('GitWorktrees', () => {
  it('adds a worktree on a new branch and leaves the main checkout clean', async () => {
    const repo = makeRepo();
    const worktrees = new GitWorktrees(repo);
    const info = await worktrees.add('thread-42 Fix the login bug!');
    expect(info).toMatchObject({
      path: join(repo, '.agent-bridge', 'worktrees', 'thread-42-Fix-the-login-bug'),
      branch: 'thread-42-Fix-the-login-bug',
      locked: false,
      prunable: false,
    });
    expect(info.head).toBe(git(repo, 'rev-parse', 'HEAD').trim());
    expect(readFileSync(join(info.path, 'README.md'), 'utf8')).toBe('hello\n');
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(git(repo, 'branch', '--show-current').trim()).toBe('main');
    expect(readFileSync(join(repo, '.git', 'info', 'exclude'), 'utf8')).toContain(
      '/.agent-bridge/worktrees/',
    );
  });

  it('keeps two worktrees side by side, each with its own files, and lists them', async () => {
    const repo = makeRepo();
    const worktrees = new GitWorktrees(repo);
    const a = await worktrees.add('thread-1');
    const b = await worktrees.add('thread-2');
    writeFileSync(join(a.path, 'only-a.txt'), 'a\n');
    expect(existsSync(join(b.path, 'only-a.txt'))).toBe(false);
    const listed = await worktrees.list();
    expect(listed.map((w) => [w.path, w.branch])).toEqual([
      [a.path, 'thread-1'],
      [b.path, 'thread-2'],
    ]);
    expect(listed.some((w) => w.path === repo)).toBe(false);
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });

  it('returns the same worktree when added twice', async () => {
    const repo = makeRepo();
    const worktrees = new GitWorktrees(repo);
    const first = await worktrees.add('thread-7');
    expect(await worktrees.add('thread-7')).toEqual(first);
    expect(await worktrees.list()).toHaveLength(1);
  });

  it('reports clean, dirty, the number of changes and commits ahead of the base', async () => {
    const repo = makeRepo();
    const worktrees = new GitWorktrees(repo);
    const { path } = await worktrees.add('thread-3');
    expect(await worktrees.status(path)).toEqual({
      path,
      branch: 'thread-3',
      exists: true,
      dirty: false,
      changes: 0,
      ahead: 0,
    });
    commitFile(path, 'feature.txt', 'feature\n');
    writeFileSync(join(path, 'README.md'), 'changed\n');
    writeFileSync(join(path, 'new.txt'), 'untracked\n');
    expect(await worktrees.status(path)).toMatchObject({ exists: true, dirty: true, changes: 2, ahead: 1 });
  });

  it('removes a clean worktree', async () => {
    const repo = makeRepo();
    const worktrees = new GitWorktrees(repo);
    const { path } = await worktrees.add('thread-4');
    expect(await worktrees.remove(path)).toEqual({ removed: true });
    expect(existsSync(path)).toBe(false);
    expect(await worktrees.list()).toEqual([]);
    expect(git(repo, 'branch', '--list', 'thread-4').trim()).toBe('thread-4');
  });

  it('refuses to remove a worktree with uncommitted changes and keeps its files; force removes it', async () => {
    const repo = makeRepo();
    const worktrees = new GitWorktrees(repo);
    const { path } = await worktrees.add('thread-5');
    writeFileSync(join(path, 'work.txt'), 'precious\n');
    const refused = await worktrees.remove(path);
    expect(refused.removed).toBe(false);
    expect(refused.reason).toMatch(
      /uncommitted changes in 1 file: commit or discard them, or remove with force/,
    );
    expect(readFileSync(join(path, 'work.txt'), 'utf8')).toBe('precious\n');
    expect(await worktrees.list()).toHaveLength(1);

    expect(await worktrees.remove(path, { force: true })).toEqual({ removed: true });
    expect(existsSync(path)).toBe(false);
    expect(await worktrees.list()).toEqual([]);
  });

  it('deletes the branch only when it is merged', async () => {
    const repo = makeRepo();
    const worktrees = new GitWorktrees(repo);
    const merged = await worktrees.add('thread-merged');
    const unmerged = await worktrees.add('thread-unmerged');
    commitFile(unmerged.path, 'wip.txt', 'wip\n');
    expect(await worktrees.remove(merged.path, { deleteBranch: true })).toEqual({
      removed: true,
      branchDeleted: true,
    });
    expect(await worktrees.remove(unmerged.path, { deleteBranch: true })).toEqual({
      removed: true,
      branchDeleted: false,
      reason: 'kept branch thread-unmerged: it is not merged into main',
    });
    expect(git(repo, 'branch', '--list').replace(/[*+ ]/g, '').split('\n').filter(Boolean).sort()).toEqual([
      'main',
      'thread-unmerged',
    ]);
  });

  it('refuses a locked worktree unless forced', async () => {
    const repo = makeRepo();
    const worktrees = new GitWorktrees(repo);
    const { path } = await worktrees.add('thread-locked');
    git(repo, 'worktree', 'lock', path);
    expect(await worktrees.remove(path)).toEqual({
      removed: false,
      reason: `${path} is locked: run git worktree unlock on it, or remove with force`,
    });
    expect(await worktrees.remove(path, { force: true })).toEqual({ removed: true });
    expect(await worktrees.list()).toEqual([]);
  });

  it('adds worktrees asked for at the same time', async () => {
    const repo = makeRepo();
    const worktrees = new GitWorktrees(repo);
    const added = await Promise.all(['a', 'b', 'c'].map((name) => worktrees.add(`thread-${name}`)));
    expect(added.map((w) => w.branch)).toEqual(['thread-a', 'thread-b', 'thread-c']);
    const exclude = readFileSync(join(repo, '.git', 'info', 'exclude'), 'utf8');
    expect(exclude.split('\n').filter((line) => line === '/.agent-bridge/worktrees/')).toHaveLength(1);
  });

  it('sees a worktree folder deleted from outside as gone, and prune clears it', async () => {
    const repo = makeRepo();
    const worktrees = new GitWorktrees(repo);
    const { path } = await worktrees.add('thread-6');
    rmSync(path, { recursive: true, force: true });
    expect(await worktrees.status(path)).toMatchObject({
      path,
      branch: 'thread-6',
      exists: false,
      dirty: false,
    });
    expect(await worktrees.list()).toMatchObject([{ path, prunable: true }]);
    await worktrees.prune();
    expect(await worktrees.list()).toEqual([]);
    expect(await worktrees.status(path)).toMatchObject({ exists: false, branch: null, ahead: null });
    // The name is free again: adding it re-creates the worktree on the same branch.
    expect(await worktrees.add('thread-6')).toMatchObject({ path, branch: 'thread-6' });
  });

  it('finds orphans under its root and under .claude/worktrees, but not known or foreign ones', async () => {
    const repo = makeRepo();
    const worktrees = new GitWorktrees(repo);
    const live = await worktrees.add('thread-live');
    const orphan = await worktrees.add('thread-orphan');
    const claudeWorktree = join(repo, '.claude', 'worktrees', 'foo');
    git(repo, 'worktree', 'add', '-q', '-b', 'worktree-foo', claudeWorktree);
    const elsewhere = join(tempDir(), 'hand-made');
    git(repo, 'worktree', 'add', '-q', '-b', 'hand-made', elsewhere);

    const orphans = await worktrees.orphans([live.path]);
    expect(orphans.map((w) => w.path).sort()).toEqual([orphan.path, claudeWorktree].sort());
  });

  it('puts worktrees under a custom root outside the repository', async () => {
    const repo = makeRepo();
    const root = join(tempDir(), 'trees');
    const worktrees = new GitWorktrees(repo, { root });
    const info = await worktrees.add('thread-9', { branch: 'feature/nine' });
    expect(info).toMatchObject({ path: join(root, 'thread-9'), branch: 'feature/nine' });
    expect(readFileSync(join(repo, '.git', 'info', 'exclude'), 'utf8')).not.toContain('agent-bridge');
    expect(await worktrees.orphans([])).toMatchObject([{ path: info.path }]);
  });

  it('reuses an existing branch instead of creating it', async () => {
    const repo = makeRepo();
    git(repo, 'branch', 'thread-8');
    const branchTip = join(tempDir(), 'tip');
    git(repo, 'worktree', 'add', '-q', branchTip, 'thread-8');
    commitFile(branchTip, 'earlier.txt', 'from an earlier session\n');
    git(repo, 'worktree', 'remove', branchTip);

    const worktrees = new GitWorktrees(repo);
    const info = await worktrees.add('thread-8');
    expect(info.branch).toBe('thread-8');
    expect(readFileSync(join(info.path, 'earlier.txt'), 'utf8')).toBe('from an earlier session\n');
    expect((await worktrees.status(info.path)).ahead).toBe(1);
  });

  it('branches from the given base', async () => {
    const repo = makeRepo();
    git(repo, 'checkout', '-q', '-b', 'develop');
    commitFile(repo, 'dev.txt', 'dev\n');
    git(repo, 'checkout', '-q', 'main');
    const worktrees = new GitWorktrees(repo);
    const info = await worktrees.add('thread-10', { base: 'develop' });
    expect(existsSync(join(info.path, 'dev.txt'))).toBe(true);
    expect((await worktrees.status(info.path)).ahead).toBe(0);
    await expect(worktrees.add('thread-11', { base: 'nope' })).rejects.toThrow(
      /base nope not found in .*: use an existing branch, tag or commit/,
    );
  });

  it('explains a branch that is already checked out elsewhere', async () => {
    const repo = makeRepo();
    const worktrees = new GitWorktrees(repo);
    await expect(worktrees.add('thread-12', { branch: 'main' })).rejects.toThrow(
      `branch main is already checked out in ${repo}: remove that worktree or use another branch`,
    );
  });

  it('says what to do when the folder is not a git repository', async () => {
    const plain = tempDir();
    expect(await GitWorktrees.isRepository(plain)).toBe(false);
    await expect(new GitWorktrees(plain).add('thread-1')).rejects.toThrow(
      `${plain} is not a git repository: run git init there or set isolation: none`,
    );
    await expect(new GitWorktrees(plain).list()).rejects.toThrow(/is not a git repository/);
    expect(await GitWorktrees.isRepository(makeRepo())).toBe(true);
    expect(await GitWorktrees.isRepository(join(plain, 'missing'))).toBe(false);
  });

  it('says what to do when the repository has no commits', async () => {
    const repo = tempDir();
    git(repo, 'init', '-q');
    await expect(new GitWorktrees(repo).add('thread-1')).rejects.toThrow(
      /has no commits yet: make a first commit there or set isolation: none/,
    );
  });

  it('makes safe folder and branch names', () => {
    expect(safeWorktreeName('thread-123-Fix bug: login/logout')).toBe('thread-123-Fix-bug-login-logout');
    expect(safeWorktreeName('..hidden..name.lock')).toBe('hidden.name-lock');
    expect(safeWorktreeName('Café ünïcode')).toBe('Cafe-unicode');
    expect(() => safeWorktreeName('///')).toThrow(/no usable characters/);
  });
});
