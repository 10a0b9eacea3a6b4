import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { systemClock, type Clock } from '../core/clock.js';
import { AuditLog } from './audit/audit-log.js';
import { ChannelStore } from './channel-store.js';
import { openDatabase, type Database } from './database.js';
import { dataDir } from './paths.js';
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
  const dir = options.dir ?? dataDir();
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const clock = options.clock ?? systemClock;
  const db = openDatabase(path.join(dir, DATABASE_FILE));
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
