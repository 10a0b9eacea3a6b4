import { createReadStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { GENESIS, hashEntry, type AuditEntry } from './audit-chain.js';
import type { ChainHead } from './audit-head.js';

export type VerifyResult =
  { ok: true; entries: number } | { ok: false; entries: number; line: number; reason: string };

/**
 * Recomputes the hash chain from the first line; reports the first line that does not fit (1-based). With the
 * chain's head as the database recorded it, a log that ends before it (its tail cut off) or that is missing
 * altogether is reported too: a chain can only prove what it still holds.
 */
export async function verifyAuditLog(file: string, head: ChainHead | null = null): Promise<VerifyResult> {
  if (!existsSync(file)) {
    if (!head) return { ok: true, entries: 0 };
    return { ok: false, entries: 0, line: 1, reason: `the audit log is missing: ${wereWritten(head)}` };
  }
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let previous: AuditEntry | null = null;
  let lineNumber = 0;
  let headSeen = false;
  for await (const line of lines) {
    lineNumber++;
    const problem = checkLine(line, lineNumber, previous?.hash ?? GENESIS);
    if (typeof problem === 'string')
      return { ok: false, entries: lineNumber - 1, line: lineNumber, reason: problem };
    if (head && problem.seq === head.seq) {
      if (problem.hash !== head.hash)
        return {
          ok: false,
          entries: lineNumber - 1,
          line: lineNumber,
          reason: `entry ${head.seq} is not the one the database recorded (the log was replaced)`,
        };
      headSeen = true;
    }
    previous = problem;
  }
  if (head && !headSeen && (previous?.seq ?? 0) < head.seq)
    return {
      ok: false,
      entries: lineNumber,
      line: lineNumber + 1,
      reason: `the log ends at entry ${previous?.seq ?? 0} but ${wereWritten(head)}: entries ${(previous?.seq ?? 0) + 1}–${head.seq} were cut from its end`,
    };
  return { ok: true, entries: lineNumber };
}

function wereWritten(head: ChainHead): string {
  return `the database recorded ${head.seq} ${head.seq === 1 ? 'entry' : 'entries'}`;
}

function checkLine(line: string, lineNumber: number, previousHash: string): AuditEntry | string {
  let entry: AuditEntry;
  try {
    entry = JSON.parse(line) as AuditEntry;
  } catch {
    return 'not valid JSON';
  }
  if (!entry || typeof entry !== 'object') return 'not an audit entry';
  if (typeof entry.seq === 'number' && entry.seq > lineNumber) {
    const missing =
      entry.seq - 1 === lineNumber ? `entry ${lineNumber} is` : `entries ${lineNumber}–${entry.seq - 1} are`;
    return `${missing} missing (line ${lineNumber} holds entry ${entry.seq})`;
  }
  if (entry.seq !== lineNumber) return `sequence number is ${String(entry.seq)}, expected ${lineNumber}`;
  if (entry.prev_hash !== previousHash)
    return 'prev_hash does not match the previous entry (an entry was removed or changed)';
  if (hashEntry(entry) !== entry.hash)
    return 'hash does not match the entry contents (the entry was modified)';
  return entry;
}
