import { existsSync, realpathSync } from 'node:fs';
import { appendFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { GitWorktreeError } from './git-command.js';

export interface WorktreeInfo {
  path: string;
  branch: string | null;
  head: string;
  locked: boolean;
  prunable: boolean;
}

/** One entry of `git worktree list --porcelain`, with whether it is the main (or bare) checkout. */
export interface ListedWorktree extends WorktreeInfo {
  main: boolean;
}

/**
 * Parses `git worktree list --porcelain`: blocks separated by blank lines, each starting with
 * `worktree <path>`, then `HEAD <sha>`, `branch refs/heads/<name>` or `detached`, and optional `bare`,
 * `locked [reason]`, `prunable [reason]`. The first block is always the main worktree.
 */
export function parseWorktreeList(porcelain: string): ListedWorktree[] {
  const entries: ListedWorktree[] = [];
  for (const block of porcelain.split(/\n\s*\n/)) {
    const lines = block.split('\n').filter((line) => line.length > 0);
    const pathLine = lines.find((line) => line.startsWith('worktree '));
    if (!pathLine) continue;
    const value = (key: string) => lines.find((line) => line === key || line.startsWith(`${key} `));
    const branchRef = value('branch')?.slice('branch '.length);
    entries.push({
      path: pathLine.slice('worktree '.length),
      branch: branchRef ? branchRef.replace(/^refs\/heads\//, '') : null,
      head: value('HEAD')?.slice('HEAD '.length) ?? '',
      locked: value('locked') !== undefined,
      prunable: value('prunable') !== undefined,
      main: entries.length === 0 || value('bare') !== undefined,
    });
  }
  return entries;
}

/**
 * A path in the form git prints it: symlinks resolved (macOS /tmp is /private/tmp), also for folders that
 * no longer exist, by resolving the deepest ancestor that still does.
 */
export function canonicalPath(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch {
    const parent = dirname(absolute);
    return parent === absolute ? absolute : join(canonicalPath(parent), basename(absolute));
  }
}

/** True when `path` is `folder` itself or somewhere below it (both canonical). */
export function isInside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

const maxNameLength = 80;

/**
 * Turns a thread title or id into a name that is safe both as a folder and as a git branch:
 * letters, digits, dots, underscores and dashes only, no leading dash or dot, no "..", no ".lock" suffix.
 */
export function safeWorktreeName(name: string): string {
  const safe = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/-{2,}/g, '-')
    .slice(0, maxNameLength)
    .replace(/^[-.]+|[-.]+$/g, '')
    .replace(/\.lock$/i, '-lock');
  if (!safe) {
    throw new GitWorktreeError(
      `worktree name ${JSON.stringify(name)} has no usable characters: use letters or digits`,
    );
  }
  return safe;
}

/** Hides our worktree root from the main checkout's `git status` when it lives inside the repo. */
export async function excludeFromMainCheckout(
  commonDir: string,
  mainPath: string,
  root: string,
): Promise<void> {
  const folder = canonicalPath(root);
  if (folder === mainPath || !isInside(folder, mainPath)) return;
  const pattern = `/${relative(mainPath, folder).split(sep).join('/')}/`;
  const excludeFile = join(commonDir, 'info', 'exclude');
  const current = existsSync(excludeFile) ? await readFile(excludeFile, 'utf8') : '';
  if (current.split('\n').some((line) => line.trim() === pattern)) return;
  await mkdir(dirname(excludeFile), { recursive: true });
  const separator = current === '' || current.endsWith('\n') ? '' : '\n';
  await appendFile(excludeFile, `${separator}# agent-bridge thread worktrees\n${pattern}\n`);
}

/** Where we remember what a worktree branched from, inside git's own admin folder for that worktree. */
const baseFile = 'agent-bridge-base';
/** Claude Code's --worktree writes the commit it started from here; read it for its worktrees. */
const claudeBaseFile = 'CLAUDE_BASE';

/**
 * git's admin folder for a worktree (<common>/worktrees/<id>, whose `gitdir` file points at <path>/.git),
 * found even when the worktree folder is gone. It disappears with the worktree, and git ignores extra files.
 */
async function adminDir(commonDir: string, path: string): Promise<string | null> {
  const adminRoot = join(commonDir, 'worktrees');
  const target = canonicalPath(path);
  const ids = existsSync(adminRoot) ? await readdir(adminRoot) : [];
  for (const id of ids) {
    const gitdir = await readFile(join(adminRoot, id, 'gitdir'), 'utf8').catch(() => '');
    if (gitdir && canonicalPath(dirname(gitdir.trim())) === target) return join(adminRoot, id);
  }
  return null;
}

export async function recordBase(commonDir: string, path: string, base: string): Promise<void> {
  const admin = await adminDir(commonDir, path);
  if (!admin) throw new GitWorktreeError(`no git admin folder for ${path}: run git worktree prune and retry`);
  await writeFile(join(admin, baseFile), `${base}\n`);
}

/** The branch (or commit) a worktree was made from, when we or Claude Code recorded it. */
export async function recordedBase(commonDir: string, path: string): Promise<string | null> {
  const admin = await adminDir(commonDir, path);
  if (!admin) return null;
  for (const file of [baseFile, claudeBaseFile]) {
    const base = (await readFile(join(admin, file), 'utf8').catch(() => '')).trim();
    if (base) return base;
  }
  return null;
}
