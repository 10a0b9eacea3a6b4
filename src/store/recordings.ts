import { constants } from 'node:fs';
import { lstat, open, readdir, realpath, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { redactSecrets } from '../core/redact.js';
import { openedPath } from './opened-path.js';

export interface RecordingInfo {
  id: string;
  file: string;
  bytes: number;
  startedAt: string | null;
  durationSeconds: number;
  title: string | null;
  command: string | null;
  width: number | null;
  height: number | null;
}

export interface RecordingPage {
  recordings: RecordingInfo[];
  /** How many recordings the folder holds in all. */
  total: number;
  /** Pass as `before` for the next (older) page; null on the last page. */
  next: string | null;
}

/** `before` names no recording in the folder. */
export class UnknownRecordingError extends Error {
  override name = 'UnknownRecordingError';
  constructor(readonly id: string) {
    super(`no recording ${id}`);
  }
}

/**
 * A page of the folder's recordings, newest first. Files are named `<ISO time>-<agent>-<id>.cast`, so their
 * names sort by time: only the page's own files are opened, with async reads, however many there are.
 */
export async function listRecordings(
  dir: string,
  page: { limit?: number; before?: string } = {},
): Promise<RecordingPage> {
  let names: string[];
  try {
    // Regular files only (the entry's own type, never a link's target): a link, FIFO or device is not listed.
    names = (await readdir(dir, { withFileTypes: true }))
      .filter((entry) => entry.isFile() && entry.name.endsWith('.cast'))
      .map((entry) => entry.name);
  } catch {
    names = [];
  }
  names.sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
  let start = 0;
  if (page.before !== undefined) {
    // The page after a listed recording: one that is not there (a typo, a session id) is said, not guessed at.
    const at = names.indexOf(`${page.before}.cast`);
    if (at < 0) throw new UnknownRecordingError(page.before);
    start = at + 1;
  }
  const end = page.limit ? Math.min(names.length, start + page.limit) : names.length;
  // One gone or swapped for something else since the folder was read is left out, not the whole page.
  const described = await Promise.all(
    names.slice(start, end).map((name) => describeRecording(path.join(dir, name)).catch(() => null)),
  );
  return {
    recordings: described.filter((recording) => recording !== null),
    total: names.length,
    next: end < names.length ? path.basename(names[end - 1]!, '.cast') : null,
  };
}

/** A regular file only (refused: a link, a FIFO, a device, a folder). */
export async function describeRecording(file: string): Promise<RecordingInfo> {
  const { handle, stat } = await openRegularFile(file);
  try {
    const { size: bytes } = stat;
    const header = parseHeader(await readSlice(handle, 0, Math.min(bytes, 64 * 1024)));
    const tail = await readSlice(handle, Math.max(0, bytes - 64 * 1024), bytes);
    return {
      id: path.basename(file, '.cast'),
      file,
      bytes,
      startedAt:
        typeof header.timestamp === 'number' ? new Date(header.timestamp * 1000).toISOString() : null,
      durationSeconds: lastEventTime(tail),
      // Command lines hold tokens (--token=…): listed as the audit log writes them (the file keeps them).
      title: typeof header.title === 'string' ? redactSecrets(header.title) : null,
      command: typeof header.command === 'string' ? redactSecrets(header.command) : null,
      width: typeof header.width === 'number' ? header.width : null,
      height: typeof header.height === 'number' ? header.height : null,
    };
  } finally {
    await handle.close();
  }
}

async function readSlice(handle: FileHandle, start: number, end: number): Promise<string> {
  const buffer = Buffer.alloc(Math.max(0, end - start));
  await handle.read(buffer, 0, buffer.length, start);
  return buffer.toString('utf8');
}

function parseHeader(head: string): Record<string, unknown> {
  const firstLine = head.split('\n', 1)[0] ?? '';
  try {
    const parsed: unknown = JSON.parse(firstLine);
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function lastEventTime(tail: string): number {
  const lines = tail.trimEnd().split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const match = /^\[([\d.]+),/.exec(lines[i] ?? '');
    if (match) return Number(match[1]);
  }
  return 0;
}

/** Why a recording is not served: no recording by that id (404), or not a regular file of the folder (403). */
export class RecordingAccessError extends Error {
  override name = 'RecordingAccessError';
  constructor(
    readonly status: 403 | 404,
    message: string,
  ) {
    super(message);
  }
}

/** A file name without `.cast`: no separator, no `..`. */
const RECORDING_ID = /^[\w.-]+$/;
const NOT_SERVED =
  'that recording is not a regular file of the recordings folder (a link, a pipe or a device): it is not served';

/**
 * Opens recording `id` of `dir` to be read whole: only a regular file of that very folder. Checked on the
 * form the file system acts on: the name is not a link, a FIFO or a device (lstat: nothing else is opened,
 * since opening a FIFO waits for a writer); it is opened without following a last link (O_NOFOLLOW) and
 * without waiting (O_NONBLOCK); the descriptor is the very file seen (fstat: regular, same device and inode)
 * and (on Linux) lies in the folder's real path. The caller closes the handle.
 */
export async function openRecording(dir: string, id: string): Promise<{ handle: FileHandle; bytes: number }> {
  if (!RECORDING_ID.test(id) || id.includes('..')) throw new RecordingAccessError(404, 'no such recording');
  const file = path.join(dir, `${id}.cast`);
  const [folder, seen] = await Promise.all([realpath(dir), lstat(file)]).catch(() => {
    throw new RecordingAccessError(404, 'no such recording');
  });
  if (!seen.isFile()) throw new RecordingAccessError(403, NOT_SERVED);
  const { handle, stat } = await openRegularFile(file).catch(() => {
    throw new RecordingAccessError(403, `${NOT_SERVED} (or it changed while it was opened)`);
  });
  try {
    const opened = await openedPath(handle.fd);
    if (
      stat.dev !== seen.dev ||
      stat.ino !== seen.ino ||
      (opened !== null && path.dirname(opened) !== folder)
    )
      throw new RecordingAccessError(403, `${NOT_SERVED} (it changed while it was opened)`);
    return { handle, bytes: stat.size };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Opens `file` if it is a regular file: never through a last link, never waiting (a FIFO); closed otherwise. */
async function openRegularFile(file: string) {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new RecordingAccessError(403, NOT_SERVED);
    return { handle, stat };
  } catch (error) {
    await handle.close();
    throw error;
  }
}
