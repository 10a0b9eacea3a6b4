import { appendFileSync, closeSync, existsSync, openSync } from 'node:fs';
import type { Clock } from '../../core/clock.js';
import { redactDeep } from '../../core/redact.js';
import type { Database } from '../database.js';
import { GENESIS, hashEntry, type AuditEntry, type AuditEventName } from './audit-chain.js';
import { lastEntryRepairing, parseEntry } from './audit-file.js';
import { readChainHead, writeChainHead, type ChainHead } from './audit-head.js';
import { linesFromEnd } from '../last-lines.js';

/** How much earlier than asked entriesSince() reads (timestamps of different processes). */
const CLOCK_SLACK_MS = 60_000;

/**
 * The append-only audit log: JSON Lines, each entry hash-chained to the one before (seed 004 §10.3). The file
 * is the record; SQLite's write lock serialises writers across processes, keeps a queryable replica and the
 * chain's head (last seq and hash), from which the chain goes on: a log cut short or deleted is never
 * restarted from genesis, and `audit verify` finds the gap. Field values are redacted: the log must never
 * hold a secret.
 */
export class AuditLog {
  constructor(
    readonly file: string,
    private readonly db: Database,
    private readonly clock: Clock,
  ) {
    if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  }

  record(event: AuditEventName, fields: Record<string, unknown> = {}): AuditEntry {
    return this.db
      .transaction(() => {
        const { last, setAside, fileEndsAt } = this.head();
        let previous = last;
        if (setAside)
          previous = this.append(previous, 'AUDIT_LINE_SET_ASIDE', {
            reason: 'the last line of the audit log was unfinished (a crash or a full disk while writing)',
            moved_to: setAside.file,
            bytes: setAside.bytes,
          });
        if (previous && fileEndsAt !== null && fileEndsAt < previous.seq)
          previous = this.append(previous, 'AUDIT_GAP', {
            reason: 'the audit log was cut short or deleted: entries are missing from it',
            log_ends_at: fileEndsAt,
            chain_head: previous.seq,
          });
        return this.append(previous, event, fields);
      })
      .immediate();
  }

  /**
   * The entries `matches` finds, written at or after `since` (ms), read from the log's end back to that time
   * (newest first). The file is the record: a process killed after writing its line and before its
   * transaction committed leaves a line the database never saw, and what it recorded did happen.
   */
  async entriesSince(since: number, matches: (entry: AuditEntry) => boolean): Promise<AuditEntry[]> {
    // Read a little further back than `since`: clocks of two processes may differ by a moment.
    const from = new Date(since - CLOCK_SLACK_MS).toISOString();
    const found: AuditEntry[] = [];
    for await (const line of linesFromEnd(this.file)) {
      const entry = parseEntry(line);
      if (!entry) continue;
      if (entry.ts < from) break;
      if (matches(entry)) found.push(entry);
    }
    return found;
  }

  /**
   * Where the chain goes on: the database's head, unless the file holds a later entry (written, then the
   * process died before its transaction committed). An unfinished last line is set aside first.
   * `fileEndsAt` is the file's last seq (0 when empty), null when its last line is not an entry.
   */
  private head(): {
    last: ChainHead | null;
    setAside: { file: string; bytes: number } | null;
    fileEndsAt: number | null;
  } {
    const stamp = new Date(this.clock.now()).toISOString().replace(/[:.]/g, '-');
    const tail = lastEntryRepairing(this.file, stamp);
    const stored = readChainHead(this.db);
    const inFile = tail.last;
    const last = inFile && (!stored || inFile.seq > stored.seq) ? inFile : stored;
    const fileEndsAt = tail.empty ? 0 : (inFile?.seq ?? null);
    return { last, setAside: tail.setAside, fileEndsAt };
  }

  private append(
    previous: ChainHead | null,
    event: AuditEventName,
    fields: Record<string, unknown>,
  ): AuditEntry {
    const entry: Omit<AuditEntry, 'hash'> = {
      seq: (previous?.seq ?? 0) + 1,
      ts: new Date(this.clock.now()).toISOString(),
      event,
      ...redactFields(fields),
      prev_hash: previous?.hash ?? GENESIS,
    };
    const full = { ...entry, hash: hashEntry(entry) } as AuditEntry;
    const line = JSON.stringify(full);
    // A log deleted meanwhile is created again, as private as before.
    appendFileSync(this.file, line + '\n', { mode: 0o600 });
    this.db
      .prepare('INSERT OR REPLACE INTO audit_events (seq, ts, event, line, hash) VALUES (?, ?, ?, ?, ?)')
      .run(full.seq, full.ts, event, line, full.hash);
    writeChainHead(this.db, full);
    return full;
  }
}

function redactFields(fields: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (key === 'seq' || key === 'ts' || key === 'event' || key === 'prev_hash' || key === 'hash') continue;
    result[key] = redactDeep(value);
  }
  return result;
}
