import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
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

/** Every `.cast` file in the folder, newest first, described from its header and last event. */
export function listRecordings(dir: string): RecordingInfo[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.cast'));
  } catch {
    return [];
  }
  return names
    .map((name) => describeRecording(path.join(dir, name)))
    .sort((a, b) => (b.startedAt ?? '').localeCompare(a.startedAt ?? ''));
}

export function describeRecording(file: string): RecordingInfo {
  const bytes = statSync(file).size;
  const header = parseHeader(readSlice(file, 0, Math.min(bytes, 64 * 1024)));
  const tail = readSlice(file, Math.max(0, bytes - 64 * 1024), bytes);
  return {
    id: path.basename(file, '.cast'),
    file,
    bytes,
    startedAt: typeof header.timestamp === 'number' ? new Date(header.timestamp * 1000).toISOString() : null,
    durationSeconds: lastEventTime(tail),
    title: typeof header.title === 'string' ? header.title : null,
    command: typeof header.command === 'string' ? header.command : null,
    width: typeof header.width === 'number' ? header.width : null,
    height: typeof header.height === 'number' ? header.height : null,
  };
}

function readSlice(file: string, start: number, end: number): string {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(Math.max(0, end - start));
    readSync(fd, buffer, 0, buffer.length, start);
    return buffer.toString('utf8');
  } finally {
    closeSync(fd);
  }
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
