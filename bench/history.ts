/**
 * A data folder with history, as a machine has after months of use: 1,000 sessions each with its recording,
 * 100,000 prompts, 100,000 inputs typed from chats and 100,000 audit lines (~111 MB, a valid hash chain).
 * Built once with direct SQL inserts through the store's own schema (agent-bridge's migrations, from dist/),
 * cached under .bench-out/ by the migrations' hash, and copied for each benchmark that uses it.
 */
import { createHash, randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import type * as ChainModule from '../src/store/audit/audit-chain.js';
import type * as StoreModule from '../src/store/store.js';
import { importDist } from './support.js';

export const HISTORY = { sessions: 1_000, prompts: 100_000, inputs: 100_000, auditLines: 100_000 };
/** Bump when what is built changes. */
const BUILD_VERSION = 2;
const DAY_MS = 86_400_000;

/** The cached folder for this checkout's schema, built when missing; returns its path. */
export async function historyFolder(root: string, cacheDir: string, log: (line: string) => void) {
  const migrations = path.join(root, 'dist', 'store', 'migrations');
  const hash = createHash('sha256').update(String(BUILD_VERSION));
  for (const name of readdirSync(migrations).sort()) hash.update(readFileSync(path.join(migrations, name)));
  const folder = path.join(cacheDir, `history-${hash.digest('hex').slice(0, 12)}`);
  if (existsSync(path.join(folder, 'agent-bridge.db'))) return folder;
  const building = `${folder}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true, mode: 0o700 });
  const started = performance.now();
  log(`  building the history data folder (cached in ${path.relative(process.cwd(), folder)})`);
  await build(root, building);
  renameSync(building, folder);
  log(`  built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return folder;
}

/** A private copy of `folder` at `dest` (benchmarks write to it). */
export function copyFolder(folder: string, dest: string): void {
  const copy = spawnSync('cp', ['-a', '--reflink=auto', folder, dest]);
  if (copy.status !== 0) throw new Error(`cp ${folder}: ${String(copy.stderr)}`);
}

async function build(root: string, dir: string): Promise<void> {
  const { openStore } = await importDist<typeof StoreModule>(root, 'store/store.js');
  const chain = await importDist<typeof ChainModule>(root, 'store/audit/audit-chain.js');
  const store = openStore({ dir });
  const start = Date.now() - 180 * DAY_MS;
  const step = (180 * DAY_MS) / HISTORY.prompts;
  const sessions = Array.from({ length: HISTORY.sessions }, (_, i) => ({
    id: randomUUID(),
    at: Math.round(start + (i * (180 * DAY_MS)) / HISTORY.sessions),
  }));
  mkdirSync(path.join(dir, 'recordings'), { mode: 0o700 });
  const db = store.db;
  db.transaction(() => {
    const session = db.prepare(
      `INSERT INTO sessions (id, agent, cwd, host, pid, owner_pid, started_at, ended_at, exit_code, status, recording, label)
       VALUES (?, 'claude', ?, 'bench-host', ?, ?, ?, ?, 0, 'completed', ?, ?)`,
    );
    for (const [i, s] of sessions.entries()) {
      const file = path.join(dir, 'recordings', recordingName(s.at, s.id));
      session.run(
        s.id,
        `/home/dev/repo-${i % 20}`,
        10_000 + i,
        9_000,
        s.at,
        s.at + 3_600_000,
        file,
        `repo-${i % 20}`,
      );
    }
    const prompt = db.prepare(
      `INSERT INTO prompts (id, session_id, kind, confidence, source, excerpt, detail, choices, safe_default,
         status, nonce, nonce_used, created_at, expires_at, updated_at, decided_at, decided_by, reply)
       VALUES (?, ?, 'yes_no', 'high', 'screen', ?, ?, '[]', '{"type":"no"}', 'resolved', ?, 1, ?, ?, ?, ?, 'telegram:42',
         '{"type":"yes"}')`,
    );
    const input = db.prepare(
      `INSERT INTO session_inputs (session_id, text, sent_by, created_at, delivered_at) VALUES (?, ?, 'telegram:42', ?, ?)`,
    );
    for (let i = 0; i < HISTORY.prompts; i++) {
      const s = sessions[Math.floor((i * HISTORY.sessions) / HISTORY.prompts)]!;
      const at = Math.round(start + i * step);
      const excerpt = `Run npm test in repo-${i % 20}? (y/n)`;
      prompt.run(
        randomUUID(),
        s.id,
        excerpt,
        `step ${i}\n${excerpt}`,
        randomUUID(),
        at,
        at + 600_000,
        at + 900,
        at + 900,
      );
    }
    for (let i = 0; i < HISTORY.inputs; i++) {
      const s = sessions[Math.floor((i * HISTORY.sessions) / HISTORY.inputs)]!;
      const at = Math.round(start + i * step);
      input.run(s.id, `please fix the failing test number ${i}`, at, at + 5);
    }
  })();
  await writeAudit(dir, store, chain, sessions, start);
  store.close();
  await writeRecordings(dir, sessions);
}

function recordingName(at: number, id: string): string {
  return `${new Date(at).toISOString().replace(/[:.]/g, '-')}-claude-${id.slice(0, 8)}.cast`;
}

/** 100,000 chained entries of ~1.1 KB (a prompt's detail is long), the replica rows and the chain's head. */
async function writeAudit(
  dir: string,
  store: StoreModule.Store,
  chain: typeof ChainModule,
  sessions: Array<{ id: string }>,
  start: number,
): Promise<void> {
  const file = await open(path.join(dir, 'audit.log'), 'w', 0o600);
  const insert = store.db.prepare(
    'INSERT INTO audit_events (seq, ts, event, line, hash) VALUES (?, ?, ?, ?, ?)',
  );
  const detail = 'diff --git a/src/app.ts b/src/app.ts\n' + '+  const value = compute(input);\n'.repeat(21);
  let previous = chain.GENESIS;
  let lines: string[] = [];
  const rows: Array<[number, string, string, string, string]> = [];
  for (let seq = 1; seq <= HISTORY.auditLines; seq++) {
    const ts = new Date(start + seq * 150_000).toISOString();
    const session = sessions[seq % sessions.length]!.id;
    const entry = {
      seq,
      ts,
      event: 'PROMPT_DETECTED' as const,
      session_id: session,
      prompt_id: randomUUID(),
      kind: 'permission',
      detail,
      prev_hash: previous,
    };
    const hash = chain.hashEntry(entry);
    const line = JSON.stringify({ ...entry, hash });
    previous = hash;
    lines.push(line);
    rows.push([seq, ts, entry.event, line, hash]);
    if (lines.length === 5_000) {
      await file.write(lines.join('\n') + '\n');
      lines = [];
    }
  }
  if (lines.length) await file.write(lines.join('\n') + '\n');
  await file.close();
  store.db.transaction(() => {
    for (const row of rows) insert.run(...row);
    store.db
      .prepare('INSERT OR REPLACE INTO audit_head (id, seq, hash) VALUES (1, ?, ?)')
      .run(HISTORY.auditLines, previous);
  })();
}

/** One small asciicast per session (a header, some output, its duration at the end), private as real ones. */
async function writeRecordings(dir: string, sessions: Array<{ id: string; at: number }>): Promise<void> {
  for (const [i, s] of sessions.entries()) {
    const header = JSON.stringify({
      version: 2,
      width: 120,
      height: 40,
      timestamp: Math.floor(s.at / 1000),
      title: 'agent-bridge run claude',
      command: 'claude',
    });
    const events = Array.from({ length: 40 + (i % 60) }, (_, k) =>
      JSON.stringify([k * 0.25, 'o', `\u001b[32m●\u001b[0m working on step ${k} of session ${i}\r\n`]),
    );
    writeFileSync(
      path.join(dir, 'recordings', recordingName(s.at, s.id)),
      [header, ...events].join('\n') + '\n',
      {
        mode: 0o600,
      },
    );
  }
}
