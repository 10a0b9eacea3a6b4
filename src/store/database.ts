import type BetterSqlite3 from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  linkSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { FROM_SOURCES, packageFile } from '../package-files.js';

export type Database = BetterSqlite3.Database;

const require = createRequire(import.meta.url);
/** The SQL files next to the code that runs: src/ (the sources), or dist/ (copied there by the build). */
const MIGRATIONS_DIR = packageFile(FROM_SOURCES ? 'src' : 'dist', 'store', 'migrations');

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Numbered SQL files, `NNN_name.sql`, applied in order, forward only. */
export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((file) => /^\d{3}_[\w-]+\.sql$/.test(file))
    .sort()
    .map((file) => ({
      version: Number(file.slice(0, 3)),
      name: file,
      sql: readFileSync(path.join(dir, file), 'utf8'),
    }));
}

/**
 * The store file is there but holds no agent-bridge data (emptied, overwritten, damaged). Starting a new one
 * over it would lose its history without a word: agent-bridge refuses, and says what to do.
 */
export class StoreRefused extends Error {
  override name = 'StoreRefused';
}

/**
 * Opens the SQLite store in WAL mode and applies pending migrations, after a consistent backup to
 * `<file>.bak` when the database already held data. A new store is built under another name and linked into
 * place whole, so a file at `file` that is empty or not an agent-bridge database was never ours to replace:
 * it is refused (StoreRefused), never silently started afresh.
 */
export function openDatabase(file: string, migrations: Migration[] = loadMigrations()): Database {
  if (!existsSync(file)) createDatabase(file, migrations);
  const Sqlite = require('better-sqlite3') as typeof BetterSqlite3;
  refuseEmpty(file);
  const db = new Sqlite(file);
  try {
    db.pragma('busy_timeout = 5000');
    refuseForeign(db, file);
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma('synchronous = NORMAL');
    // Text overwritten or deleted (a pasted token once typed, its redacted copy kept) leaves no old bytes behind.
    db.pragma('secure_delete = ON');
    migrate(db, file, migrations);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** A new store: created aside, migrated, then linked into place (another process may have won the race). */
function createDatabase(file: string, migrations: Migration[]): void {
  const Sqlite = require('better-sqlite3') as typeof BetterSqlite3;
  const temporary = `${file}.new-${process.pid}-${randomBytes(4).toString('hex')}`;
  closeSync(openSync(temporary, 'wx', 0o600));
  try {
    const db = new Sqlite(temporary);
    try {
      db.pragma('journal_mode = WAL');
      migrate(db, temporary, migrations);
    } finally {
      db.close();
    }
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    for (const leftover of [temporary, `${temporary}-wal`, `${temporary}-shm`])
      rmSync(leftover, { force: true });
  }
}

function refuseEmpty(file: string): void {
  if (statSync(file).size > 0) return;
  throw new StoreRefused(`${file} is empty (0 bytes): ${LOST} ${whatToDo(file, 'the empty file')}`);
}

function refuseForeign(db: Database, file: string): void {
  let tables: string[];
  try {
    tables = (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>
    ).map((row) => row.name);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== 'SQLITE_NOTADB' && code !== 'SQLITE_CORRUPT') throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new StoreRefused(`${file} cannot be read (${reason}): ${LOST} ${whatToDo(file, 'it')}`);
  }
  if (!tables.includes('schema_version'))
    throw new StoreRefused(
      `${file} holds no agent-bridge data (${tables.length} other tables): ${LOST} ${whatToDo(file, 'it')}`,
    );
}

const LOST =
  'its history (sessions, prompts, the audit chain) is not there, and agent-bridge will not start over on top of it.';

function whatToDo(file: string, what: string): string {
  const backup = `${file}.bak`;
  const aside = `mv ${file} ${file}.damaged`;
  return existsSync(backup)
    ? `Restore the backup (cp ${backup} ${file}), or move ${what} aside to start afresh (${aside}).`
    : `Move ${what} aside to start afresh (${aside}); there is no ${path.basename(backup)} to restore.`;
}

/** An existing store, only to read it (nothing is created or migrated). */
export function openDatabaseReadOnly(file: string): Database {
  const Sqlite = require('better-sqlite3') as typeof BetterSqlite3;
  return new Sqlite(file, { readonly: true, fileMustExist: true });
}

export function schemaVersion(db: Database): number {
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
  );
  const row = db.prepare('SELECT MAX(version) AS version FROM schema_version').get() as {
    version: number | null;
  };
  return row.version ?? 0;
}

function migrate(db: Database, file: string, migrations: Migration[]): void {
  const current = schemaVersion(db);
  const pending = migrations.filter((m) => m.version > current);
  if (pending.length === 0) return;
  if (current > 0) backup(db, file);
  for (const migration of pending) {
    db.transaction(() => {
      // Another process may have applied it meanwhile: the IMMEDIATE transaction makes this check exact.
      if (schemaVersion(db) >= migration.version) return;
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)').run(
        migration.version,
        migration.name,
        Date.now(),
      );
    }).immediate();
  }
}

function backup(db: Database, file: string): void {
  const target = `${file}.bak`;
  const temporary = `${target}.tmp-${process.pid}`;
  db.prepare('VACUUM INTO ?').run(temporary);
  chmodSync(temporary, 0o600);
  renameSync(temporary, target);
}
