import { realpath } from 'node:fs/promises';
import type { ChangedFile, FolderChanges } from '../../channels/web/file-views.js';
import { tryGit } from '../worktrees/git-command.js';

/** Diffs larger than this are cut (the page says so): a generated file can be megabytes. */
export const MAX_DIFF_CHARS = 512 * 1024;

/**
 * Never a command of the repository's own: no external diff or textconv driver, no fsmonitor hook, no pager.
 * The session's folder may hold a repository the agent configured.
 */
const SAFE = [
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.untrackedCache=false',
  '-c',
  'core.pager=cat',
  '-c',
  'color.ui=false',
  '-c',
  'diff.external=',
];

/** What changed in the session's folder, read-only: its part of the repository only (`-- .`, `--relative`). */
export async function folderChanges(root: string): Promise<FolderChanges> {
  const cwd = await realpath(root).catch(() => null);
  const none = { repository: false, files: [], diff: '', truncated: false };
  if (!cwd) return none;
  const prefix = await tryGit(cwd, [...SAFE, 'rev-parse', '--show-prefix']);
  if (prefix === null) return none;
  const status = (await tryGit(cwd, [...SAFE, 'status', '--porcelain=v1', '-z', '--', '.'])) ?? '';
  const diff =
    (await tryGit(cwd, [
      ...SAFE,
      'diff',
      'HEAD',
      '--no-ext-diff',
      '--no-textconv',
      '--relative',
      '--',
      '.',
    ])) ??
    (await tryGit(cwd, [...SAFE, 'diff', '--no-ext-diff', '--no-textconv', '--relative', '--', '.'])) ??
    '';
  return {
    repository: true,
    files: parseStatus(status, prefix.trim()),
    diff: diff.length > MAX_DIFF_CHARS ? diff.slice(0, MAX_DIFF_CHARS) : diff,
    truncated: diff.length > MAX_DIFF_CHARS,
  };
}

/** `git status --porcelain=v1 -z`: `XY path\0` (a rename adds its old path as the next field). */
export function parseStatus(output: string, prefix: string): ChangedFile[] {
  const fields = output.split('\0');
  const files: ChangedFile[] = [];
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    if (field.length < 4) continue;
    const status = field.slice(0, 2);
    const full = field.slice(3);
    if (status[0] === 'R' || status[0] === 'C') i++; // the old path follows
    files.push({ path: full.startsWith(prefix) ? full.slice(prefix.length) : full, status });
  }
  return files;
}
