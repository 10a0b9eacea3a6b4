import { existsSync } from 'node:fs';
import { openDatabaseReadOnly, type Database } from '../database.js';

/** The last entry of the audit chain as the database recorded it. */
export interface ChainHead {
  seq: number;
  hash: string;
}

export function readChainHead(db: Database): ChainHead | null {
  const row = db.prepare('SELECT seq, hash FROM audit_head WHERE id = 1').get() as ChainHead | undefined;
  return row ?? null;
}

export function writeChainHead(db: Database, head: ChainHead): void {
  db.prepare(
    'INSERT INTO audit_head (id, seq, hash) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash',
  ).run(head.seq, head.hash);
}

/** The head recorded in the store at `dbFile`, read without changing it; null when there is no store yet. */
export function readStoredChainHead(dbFile: string): ChainHead | null {
  if (!existsSync(dbFile)) return null;
  const db = openDatabaseReadOnly(dbFile);
  try {
    const hasHead = db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'audit_head'")
      .get();
    if (hasHead) return readChainHead(db);
    // A store from before the head was kept: its replica's last entry is the head.
    const row = db.prepare('SELECT seq, hash FROM audit_events ORDER BY seq DESC LIMIT 1').get() as
      ChainHead | undefined;
    return row ?? null;
  } finally {
    db.close();
  }
}
