import type BetterSqlite3 from 'better-sqlite3';
import { chmodSync, closeSync, existsSync, openSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export type Database = BetterSqlite3.Database;

const require = createRequire(import.meta.url);
const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

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
 * Opens (creating, private to the user) the SQLite store in WAL mode and applies pending migrations, after a
 * consistent backup to `<file>.bak` when the database already held data.
 */
export function openDatabase(file: string, migrations: Migration[] = loadMigrations()): Database {
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  const Sqlite = require('better-sqlite3') as typeof BetterSqlite3;
  const db = new Sqlite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  db.pragma('synchronous = NORMAL');
  // Text overwritten or deleted (a pasted token once typed, its redacted copy kept) leaves no old bytes behind.
  db.pragma('secure_delete = ON');
  migrate(db, file, migrations);
  return db;
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
