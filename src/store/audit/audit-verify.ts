import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { GENESIS, hashEntry, type AuditEntry } from './audit-chain.js';

export type VerifyResult =
  { ok: true; entries: number } | { ok: false; entries: number; line: number; reason: string };

/** Recomputes the hash chain from the first line; reports the first line that does not fit (1-based). */
export async function verifyAuditLog(file: string): Promise<VerifyResult> {
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let previousHash = GENESIS;
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber++;
    const problem = checkLine(line, lineNumber, previousHash);
    if (typeof problem === 'string')
      return { ok: false, entries: lineNumber - 1, line: lineNumber, reason: problem };
    previousHash = problem.hash;
  }
  return { ok: true, entries: lineNumber };
}

function checkLine(line: string, lineNumber: number, previousHash: string): AuditEntry | string {
  let entry: AuditEntry;
  try {
    entry = JSON.parse(line) as AuditEntry;
  } catch {
    return 'not valid JSON';
  }
  if (entry.seq !== lineNumber) return `sequence number is ${String(entry.seq)}, expected ${lineNumber}`;
  if (entry.prev_hash !== previousHash)
    return 'prev_hash does not match the previous entry (an entry was removed or changed)';
  if (hashEntry(entry) !== entry.hash)
    return 'hash does not match the entry contents (the entry was modified)';
  return entry;
}
