import { existsSync, statSync } from 'node:fs';
import { opendir, realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import type { FolderSuggestions, PickerFolder, SubfolderListing } from '../../channels/web/file-views.js';
import { FileAccessError } from './folder-files.js';

/**
 * Folders to start an agent in, for the web UI's folder picker: the folders sessions ran in lately, git
 * repositories near home, and any folder's subfolders (names of folders only, never files). Read-only.
 */

const MAX_FOLDERS = 500;
const MAX_RECENT = 12;
const MAX_REPOSITORIES = 40;
/** Folders read per level when looking for repositories under home: a huge home folder stays quick. */
const SCAN_PER_FOLDER = 300;
const SKIPPED = new Set(['node_modules', 'Library', 'Applications', 'snap']);

function pickerFolder(folder: string): PickerFolder {
  return { path: folder, name: path.basename(folder) || folder, git: existsSync(path.join(folder, '.git')) };
}

/** Recent session folders that still exist, then repositories: among them, and in home and one level below. */
export async function folderSuggestions(recentFolders: string[]): Promise<FolderSuggestions> {
  const home = homedir();
  const recent = [...new Set(recentFolders)].filter((folder) => isFolder(folder)).slice(0, MAX_RECENT);
  const repositories = new Set(recent.filter((folder) => existsSync(path.join(folder, '.git'))));
  for (const top of await subfolders(home, SCAN_PER_FOLDER)) {
    if (repositories.size >= MAX_REPOSITORIES) break;
    if (existsSync(path.join(top, '.git'))) repositories.add(top);
    else
      for (const below of await subfolders(top, SCAN_PER_FOLDER))
        if (existsSync(path.join(below, '.git')) && repositories.size < MAX_REPOSITORIES)
          repositories.add(below);
  }
  return {
    home,
    recent: recent.map(pickerFolder),
    repositories: [...repositories].sort((a, b) => a.localeCompare(b)).map(pickerFolder),
  };
}

/** The subfolders of an absolute folder (hidden ones left out), for browsing. */
export async function listSubfolders(raw: unknown): Promise<SubfolderListing> {
  if (typeof raw !== 'string' || raw.includes('\0') || !path.isAbsolute(raw))
    throw new FileAccessError(400, 'give an absolute folder path, e.g. ?path=/home/you/src');
  const folder = await realpath(raw).catch(() => {
    throw new FileAccessError(404, `no such folder: ${raw}`);
  });
  if (!(await stat(folder)).isDirectory()) throw new FileAccessError(400, `${raw} is not a folder`);
  const found = await subfolders(folder, MAX_FOLDERS + 1);
  const parent = path.dirname(folder);
  return {
    path: folder,
    parent: parent === folder ? null : parent,
    folders: found.slice(0, MAX_FOLDERS).map(pickerFolder),
    truncated: found.length > MAX_FOLDERS,
  };
}

/** Visible subfolders (links to folders included), sorted by name, at most `limit`. */
async function subfolders(folder: string, limit: number): Promise<string[]> {
  const found: string[] = [];
  try {
    for await (const entry of await opendir(folder)) {
      if (found.length >= limit) break;
      if (entry.name.startsWith('.') || SKIPPED.has(entry.name)) continue;
      const full = path.join(folder, entry.name);
      if (entry.isDirectory() || (entry.isSymbolicLink() && isFolder(full))) found.push(full);
    }
  } catch {
    return found; // unreadable: nothing to offer there
  }
  return found.sort((a, b) => a.localeCompare(b));
}

function isFolder(folder: string): boolean {
  try {
    return statSync(folder).isDirectory();
  } catch {
    return false;
  }
}
