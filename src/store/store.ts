import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { systemClock, type Clock } from '../core/clock.js';
import { AuditLog } from './audit/audit-log.js';
import { ChannelStore } from './channel-store.js';
import { openDatabase, StoreRefused, type Database } from './database.js';
import { dataDirPath } from './paths.js';
import { PromptStore } from './prompt-store.js';
import { SessionStore } from './session-store.js';
import { ThreadStore } from './thread-store.js';

export interface Store {
  dir: string;
  db: Database;
  prompts: PromptStore;
  sessions: SessionStore;
  channels: ChannelStore;
  threads: ThreadStore;
  audit: AuditLog;
  /** Changes whenever another connection commits: a cheap way to notice answers given from elsewhere. */
  dataVersion(): number;
  close(): void;
}

export const DATABASE_FILE = 'agent-bridge.db';
export const AUDIT_FILE = 'audit.log';

export function openStore(options: { dir?: string; clock?: Clock } = {}): Store {
  const dir = options.dir ?? dataDirPath();
  const clock = options.clock ?? systemClock;
  let db: Database;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    db = openDatabase(path.join(dir, DATABASE_FILE));
  } catch (error) {
    throw storeUnavailable(dir, error);
  }
  const versionStatement = db.prepare('PRAGMA data_version');
  return {
    dir,
    db,
    prompts: new PromptStore(db, clock),
    sessions: new SessionStore(db, clock),
    channels: new ChannelStore(db, clock),
    threads: new ThreadStore(db, clock),
    audit: new AuditLog(path.join(dir, AUDIT_FILE), db, clock),
    dataVersion: () => (versionStatement.get() as { data_version: number }).data_version,
    close: () => db.close(),
  };
}

/** A disk that is full, read-only or missing, said as one line with what to do. */
function storeUnavailable(dir: string, error: unknown): Error {
  if (error instanceof StoreRefused) return error;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !/^(E[A-Z]+|SQLITE_(FULL|READONLY|CANTOPEN|IOERR\w*|PERM))$/.test(code))
    return error instanceof Error ? error : new Error(String(error));
  const reason = error instanceof Error ? error.message : String(error);
  return new StoreRefused(
    `cannot open agent-bridge's store in ${dir} (${reason}): free some space or make it writable, or set AGENT_BRIDGE_HOME to another folder`,
  );
}
