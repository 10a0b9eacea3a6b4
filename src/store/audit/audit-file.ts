import {
  closeSync,
  existsSync,
  fstatSync,
  ftruncateSync,
  openSync,
  readSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { hashEntry, type AuditEntry } from './audit-chain.js';

/** The end of the audit log file: its last whole line, and bytes after it that no newline ended. */
interface LogTail {
  lastLine: string | null;
  /** Where the unfinished last line starts, and its bytes (a crash or a full disk mid-write). */
  partial: { offset: number; bytes: Buffer } | null;
}

function readTail(fd: number): LogTail {
  const size = fstatSync(fd).size;
  for (let window = 4096; ; window *= 4) {
    const start = Math.max(0, size - window);
    const buffer = Buffer.alloc(size - start);
    readSync(fd, buffer, 0, buffer.length, start);
    const end = buffer.lastIndexOf(0x0a);
    const lineStart = end <= 0 ? -1 : buffer.lastIndexOf(0x0a, end - 1);
    // Read further back until the last whole line is seen from its start (or the file's).
    if (start > 0 && (end < 0 || lineStart < 0)) continue;
    const partial =
      end === buffer.length - 1 ? null : { offset: start + end + 1, bytes: buffer.subarray(end + 1) };
    const lastLine = end < 0 ? '' : buffer.subarray(lineStart + 1, end).toString('utf8');
    return { lastLine: lastLine || null, partial };
  }
}

/** An audit entry, or null for a line that is not one (garbage is for `audit verify` to report). */
export function parseEntry(line: string): AuditEntry | null {
  try {
    const entry = JSON.parse(line) as AuditEntry;
    return entry &&
      typeof entry === 'object' &&
      typeof entry.seq === 'number' &&
      typeof entry.hash === 'string'
      ? entry
      : null;
  } catch {
    return null;
  }
}

export interface SetAside {
  file: string;
  bytes: number;
}

/**
 * The last entry of the log. An unfinished last line is finished when it is a whole entry that only lacks its
 * newline; otherwise it is moved to `<file>.partial-<stamp>` and cut off, so the log goes on (a crash or a
 * full disk mid-write must not stop the next writer); what was set aside is returned, to be audited.
 */
export function lastEntryRepairing(
  file: string,
  stamp: string,
): { last: AuditEntry | null; empty: boolean; setAside: SetAside | null } {
  // A log deleted while we ran is created again, as private as before.
  const fd = openSync(file, existsSync(file) ? 'r+' : 'w+', 0o600);
  try {
    const { lastLine, partial } = readTail(fd);
    const last = lastLine === null ? null : parseEntry(lastLine);
    if (!partial) return { last, empty: lastLine === null, setAside: null };
    const finished = parseEntry(partial.bytes.toString('utf8'));
    if (finished && hashEntry(finished) === finished.hash) {
      writeSync(fd, '\n', fstatSync(fd).size);
      return { last: finished, empty: false, setAside: null };
    }
    const aside = `${file}.partial-${stamp}`;
    // Kept before it is cut: if this write fails (the disk is still full), nothing is lost.
    writeFileSync(aside, partial.bytes, { mode: 0o600, flag: 'wx' });
    ftruncateSync(fd, partial.offset);
    return { last, empty: lastLine === null, setAside: { file: aside, bytes: partial.bytes.length } };
  } finally {
    closeSync(fd);
  }
}
