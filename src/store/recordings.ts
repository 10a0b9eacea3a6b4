import { open, readdir, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

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
    names = (await readdir(dir)).filter((name) => name.endsWith('.cast'));
  } catch {
    return { recordings: [], total: 0, next: null };
  }
  names.sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
  const from = page.before ? names.findIndex((name) => name < `${page.before}.cast`) : 0;
  const start = from < 0 ? names.length : from;
  const end = page.limit ? Math.min(names.length, start + page.limit) : names.length;
  const recordings = await Promise.all(
    names.slice(start, end).map((name) => describeRecording(path.join(dir, name))),
  );
  return {
    recordings,
    total: names.length,
    next: end < names.length ? path.basename(names[end - 1]!, '.cast') : null,
  };
}

export async function describeRecording(file: string): Promise<RecordingInfo> {
  const handle = await open(file, 'r');
  try {
    const { size: bytes } = await handle.stat();
    const header = parseHeader(await readSlice(handle, 0, Math.min(bytes, 64 * 1024)));
    const tail = await readSlice(handle, Math.max(0, bytes - 64 * 1024), bytes);
    return {
      id: path.basename(file, '.cast'),
      file,
      bytes,
      startedAt:
        typeof header.timestamp === 'number' ? new Date(header.timestamp * 1000).toISOString() : null,
      durationSeconds: lastEventTime(tail),
      title: typeof header.title === 'string' ? header.title : null,
      command: typeof header.command === 'string' ? header.command : null,
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
