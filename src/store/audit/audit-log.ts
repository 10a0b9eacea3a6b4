import { appendFileSync, closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import type { Clock } from '../../core/clock.js';
import { redactDeep } from '../../core/redact.js';
import type { Database } from '../database.js';
import { GENESIS, hashEntry, type AuditEntry, type AuditEventName } from './audit-chain.js';

/**
 * The append-only audit log: JSON Lines, each entry hash-chained to the one before (seed 004 §10.3). The file
 * is the record; SQLite's write lock serialises writers across processes and keeps a queryable replica.
 * Field values are redacted: the log must never hold a secret.
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
        const last = lastEntry(this.file);
        const entry: Omit<AuditEntry, 'hash'> = {
          seq: (last?.seq ?? 0) + 1,
          ts: new Date(this.clock.now()).toISOString(),
          event,
          ...redactFields(fields),
          prev_hash: last?.hash ?? GENESIS,
        };
        const full = { ...entry, hash: hashEntry(entry) } as AuditEntry;
        const line = JSON.stringify(full);
        appendFileSync(this.file, line + '\n');
        this.db
          .prepare('INSERT OR REPLACE INTO audit_events (seq, ts, event, line, hash) VALUES (?, ?, ?, ?, ?)')
          .run(full.seq, full.ts, event, line, full.hash);
        return full;
      })
      .immediate();
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

/** The last complete line of the log, read from its end (the log can be large). */
export function lastEntry(file: string): AuditEntry | null {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    for (let window = 4096; ; window *= 4) {
      const start = Math.max(0, size - window);
      const buffer = Buffer.alloc(size - start);
      readSync(fd, buffer, 0, buffer.length, start);
      const lines = buffer.toString('utf8').split('\n').filter(Boolean);
      // A window that starts mid-file may cut its first line: only whole lines count.
      const whole = start === 0 ? lines : lines.slice(1);
      const last = whole.at(-1);
      if (last) return JSON.parse(last) as AuditEntry;
      if (start === 0) return null;
    }
  } finally {
    closeSync(fd);
  }
}
