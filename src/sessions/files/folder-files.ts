import { constants } from 'node:fs';
import { lstat, open, opendir, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { FolderEntry, FolderListing, TextFile } from '../../channels/web/file-views.js';
import { openedPath } from '../../store/opened-path.js';

/**
 * Read-only access to the files of a session's folder, for the web UI. Every path is checked on the form the
 * file system acts on: relative, without `..`, then resolved through every symlink (realpath) and kept only
 * when it is still inside the folder's own real path; a file is opened without following a last symlink and,
 * where the system says which file an open descriptor is (Linux /proc), checked again once open, so a folder
 * swapped for a link between the check and the open is caught. Only regular text files up to a size are read.
 */

/** Larger files are not shown (a log, a build artefact): the page says so with the size. */
export const MAX_FILE_BYTES = 1024 * 1024;
/** A folder with more entries is shown in part. */
export const MAX_ENTRIES = 1000;
const MAX_PATH_CHARS = 4096;
/** A NUL in the first bytes: not text. */
const SNIFF_BYTES = 8192;

export class FileAccessError extends Error {
  override name = 'FileAccessError';
  constructor(
    readonly status: 400 | 403 | 404 | 413 | 415,
    message: string,
  ) {
    super(message);
  }
}

/** A path as the page sends it, made a clean relative path, or refused (absolute, `..`, NUL, too long). */
export function cleanRelative(raw: unknown): string {
  if (raw === undefined || raw === '') return '';
  if (typeof raw !== 'string') throw new FileAccessError(400, 'send ?path= once, as text');
  if (raw.length > MAX_PATH_CHARS) throw new FileAccessError(400, 'the path is too long');
  if (raw.includes('\0')) throw new FileAccessError(400, 'the path must not contain a NUL character');
  if (path.isAbsolute(raw) || /^[a-zA-Z]:/.test(raw))
    throw new FileAccessError(400, "give a path inside the session's folder, not an absolute one");
  const parts = raw.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.includes('..')) throw new FileAccessError(403, "the path leaves the session's folder (..)");
  return parts.join('/');
}

/** The real path of `relative` under `root`, refused when it resolves (through links) outside root. */
async function resolveInside(root: string, relative: string): Promise<{ rootReal: string; real: string }> {
  const rootReal = await realpath(root).catch(() => {
    throw new FileAccessError(404, "the session's folder is gone");
  });
  const real = await realpath(path.join(rootReal, relative)).catch(() => {
    throw new FileAccessError(404, `no such file or folder: ${relative || '.'}`);
  });
  if (!isInside(rootReal, real))
    throw new FileAccessError(403, `${relative} leads outside the session's folder (a link)`);
  return { rootReal, real };
}

function isInside(root: string, target: string): boolean {
  return target === root || target.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

export async function listFolder(root: string, raw: unknown): Promise<FolderListing> {
  const relative = cleanRelative(raw);
  const { real } = await resolveInside(root, relative);
  if (!(await lstat(real)).isDirectory()) throw new FileAccessError(400, `${relative} is not a folder`);
  const entries: FolderEntry[] = [];
  let truncated = false;
  for await (const entry of await opendir(real)) {
    if (entries.length >= MAX_ENTRIES) {
      truncated = true;
      break;
    }
    const type = entry.isDirectory()
      ? 'folder'
      : entry.isFile()
        ? 'file'
        : entry.isSymbolicLink()
          ? 'link'
          : 'other';
    const size =
      type === 'file'
        ? await lstat(path.join(real, entry.name)).then(
            (s) => s.size,
            () => null,
          )
        : null;
    entries.push({ name: entry.name, type, size });
  }
  // Swapped for a link while it was read: what was listed may be another folder's.
  if ((await realpath(path.join(root, relative)).catch(() => null)) !== real)
    throw new FileAccessError(403, `${relative} changed while it was read`);
  entries.sort((a, b) =>
    a.type === 'folder' && b.type !== 'folder'
      ? -1
      : b.type === 'folder' && a.type !== 'folder'
        ? 1
        : a.name.localeCompare(b.name),
  );
  return { path: relative, entries, truncated };
}

export async function readTextFile(root: string, raw: unknown): Promise<TextFile> {
  const relative = cleanRelative(raw);
  if (relative === '') throw new FileAccessError(400, 'give the path of a file');
  const { rootReal, real } = await resolveInside(root, relative);
  const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(
    () => {
      throw new FileAccessError(403, `${relative} cannot be opened (it changed, or is a link)`);
    },
  );
  try {
    const opened = await openedPath(handle.fd);
    if (opened !== null && !isInside(rootReal, opened))
      throw new FileAccessError(403, `${relative} leads outside the session's folder`);
    const stat = await handle.stat();
    if (!stat.isFile()) throw new FileAccessError(415, `${relative} is not a regular file`);
    if (stat.size > MAX_FILE_BYTES)
      throw new FileAccessError(
        413,
        `${relative} is ${sizeText(stat.size, 'up')}: only files up to ${sizeText(MAX_FILE_BYTES)} are shown`,
      );
    const buffer = Buffer.alloc(stat.size);
    const { bytesRead } = await handle.read(buffer, 0, stat.size, 0);
    const bytes = buffer.subarray(0, bytesRead);
    if (bytes.subarray(0, SNIFF_BYTES).includes(0))
      throw new FileAccessError(415, `${relative} is not text (a binary file)`);
    return { path: relative, size: bytesRead, text: bytes.toString('utf8') };
  } finally {
    await handle.close();
  }
}

/**
 * A size for people: "900 bytes", "12.5 KB", "2.6 MB" (1 KB = 1024 bytes, one decimal, none when whole).
 * Rounded `up` for a size over a limit, so it never reads as the limit itself.
 */
export function sizeText(bytes: number, round: 'near' | 'up' = 'near'): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const [value, unit] = bytes < 1024 * 1024 ? [bytes / 1024, 'KB'] : [bytes / (1024 * 1024), 'MB'];
  const tenths = round === 'up' ? Math.ceil(value * 10) : Math.round(value * 10);
  return `${tenths % 10 === 0 ? tenths / 10 : (tenths / 10).toFixed(1)} ${unit}`;
}
