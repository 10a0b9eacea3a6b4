import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadMigrations, openDatabase, schemaVersion } from '../../src/store/database.js';
import { AUDIT_FILE, DATABASE_FILE, openStore } from '../../src/store/store.js';
import { isProcessAlive } from '../../src/drivers/terminal/process-tree.js';
import { reapDeadSessions, reapIfDead } from '../../src/sessions/session-liveness.js';
import { permissionPrompt, tempStore, yesNoPrompt, type TempStore } from '../support/temp-store.js';

let store: TempStore;
afterEach(() => store?.remove());

function openPrompt(s: TempStore, ttlMs = 60_000) {
  if (!s.sessions.get('sess-1'))
    s.sessions.create({ id: 'sess-1', agent: 'shell', cwd: '/tmp', pid: 1, recording: null });
  const record = s.prompts.create('sess-1', yesNoPrompt(), ttlMs, 'screen');
  s.prompts.transition(record.id, 'routed');
  s.prompts.transition(record.id, 'awaiting_reply');
  return s.prompts.get(record.id)!;
}

describe('SQLite store', () => {
  it('is a private WAL database with the schema migrated', () => {
    store = tempStore();
    expect(statSync(path.join(store.dir, DATABASE_FILE)).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(store.dir, AUDIT_FILE)).mode & 0o777).toBe(0o600);
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(schemaVersion(store.db)).toBe(loadMigrations().at(-1)!.version);
  });

  it('applies new migrations forward only, after a backup of the existing data', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ab-migrate-'));
    const file = path.join(dir, 'test.db');
    const first = [
      { version: 1, name: '001_a.sql', sql: 'CREATE TABLE a (x INTEGER); INSERT INTO a VALUES (42);' },
    ];
    openDatabase(file, first).close();
    expect(existsSync(`${file}.bak`)).toBe(false);
    const second = [...first, { version: 2, name: '002_b.sql', sql: 'CREATE TABLE b (y INTEGER);' }];
    const db = openDatabase(file, second);
    expect(schemaVersion(db)).toBe(2);
    db.close();
    const backup = openDatabase(`${file}.bak`, first);
    expect(backup.prepare('SELECT x FROM a').get()).toEqual({ x: 42 });
    expect(schemaVersion(backup)).toBe(1);
    backup.close();
    expect(statSync(`${file}.bak`).mode & 0o777).toBe(0o600);
    rmSync(dir, { recursive: true, force: true });
  });

  it('moves a prompt only along the state machine, each transition once', () => {
    store = tempStore();
    store.sessions.create({ id: 's', agent: 'shell', cwd: '/tmp', pid: 1, recording: null });
    const record = store.prompts.create('s', permissionPrompt(), 1000, 'screen');
    expect(record.status).toBe('created');
    expect(record.nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(store.prompts.transition(record.id, 'injected')).toBe(false);
    expect(store.prompts.transition(record.id, 'routed')).toBe(true);
    expect(store.prompts.transition(record.id, 'awaiting_reply')).toBe(true);
    expect(store.prompts.transition(record.id, 'awaiting_reply')).toBe(false);
    expect(store.prompts.get(record.id)).toMatchObject({
      choices: permissionPrompt().choices,
      allowForSessionChoice: 2,
    });
  });

  it('accepts an answer only with the right session and nonce, once, before it expires', () => {
    store = tempStore();
    const record = openPrompt(store, 1000);
    const base = {
      promptId: record.id,
      sessionId: 'sess-1',
      nonce: record.nonce,
      reply: { type: 'yes' as const },
      decidedBy: 'test',
    };
    expect(store.prompts.decide({ ...base, sessionId: 'other' })).toBeNull();
    expect(store.prompts.decide({ ...base, nonce: '0'.repeat(32) })).toBeNull();
    expect(store.prompts.decide(base)?.status).toBe('reply_received');
    expect(store.prompts.decide(base)).toBeNull();
    const late = openPrompt(store, 1000);
    store.clock.advance(1000);
    expect(store.prompts.decide({ ...base, promptId: late.id, nonce: late.nonce })).toBeNull();
    expect(store.prompts.expire(late.id)?.reply).toEqual({ type: 'no' });
  });

  it('lets an answer and the expiry race: exactly one wins, whichever comes first', () => {
    store = tempStore();
    for (let i = 0; i < 50; i++) {
      const record = openPrompt(store, 10);
      store.clock.advance(i % 2 === 0 ? 9 : 10);
      const answered = store.prompts.decide({
        promptId: record.id,
        sessionId: 'sess-1',
        nonce: record.nonce,
        reply: { type: 'yes' },
        decidedBy: 't',
      });
      const expired = store.prompts.expire(record.id);
      expect(Number(answered !== null) + Number(expired !== null)).toBe(1);
      expect(answered !== null).toBe(i % 2 === 0);
    }
  });

  it('records an injection once with its reply row', () => {
    store = tempStore();
    const record = openPrompt(store);
    const decided = store.prompts.decide({
      promptId: record.id,
      sessionId: 'sess-1',
      nonce: record.nonce,
      reply: { type: 'yes' },
      decidedBy: 'cli:me',
    })!;
    expect(store.prompts.markInjected(decided, 'y\r', 'operator')).toBe(true);
    expect(store.prompts.markInjected(decided, 'y\r', 'operator')).toBe(false);
    expect(store.db.prepare('SELECT COUNT(*) AS n FROM replies').get()).toEqual({ n: 1 });
  });

  it('closes the open prompts of a session whose process is gone, once, with SESSION_END audited', () => {
    store = tempStore();
    const record = openPrompt(store);
    const dead = () => false;
    const reaped = reapDeadSessions(store, dead);
    expect(reaped.map((s) => s.id)).toEqual(['sess-1']);
    expect(store.sessions.get('sess-1')?.status).toBe('crashed');
    expect(store.prompts.open()).toEqual([]);
    expect(store.prompts.get(record.id)).toMatchObject({
      status: 'failed',
      note: expect.stringContaining('session crashed'),
    });
    // A second process noticing the same death changes nothing and audits nothing more.
    reapIfDead(store, store.sessions.get('sess-1')!, dead);
    const events = store.db
      .prepare("SELECT event FROM audit_events WHERE event IN ('SESSION_END', 'PROMPT_FAILED')")
      .all();
    expect(events).toEqual([{ event: 'PROMPT_FAILED' }, { event: 'SESSION_END' }]);
  });

  it("knows a session's process by pid and start time: a reused pid is not the owner", () => {
    store = tempStore();
    store.sessions.create({
      id: 'sess-2',
      agent: 'shell',
      cwd: '/tmp',
      pid: 1,
      recording: null,
      owner: { pid: process.pid, startTime: 12345 },
    });
    const owner = store.sessions.get('sess-2')!.owner;
    expect(owner).toEqual({ pid: process.pid, startTime: 12345 });
    expect(store.sessions.ownerAlive(store.sessions.get('sess-2')!, isProcessAlive)).toBe(
      process.platform !== 'linux',
    );
  });

  it('finds prompts by a unique id prefix, treating LIKE wildcards literally', () => {
    store = tempStore();
    const record = openPrompt(store);
    expect(store.prompts.findByPrefix(record.id.slice(0, 8)).map((p) => p.id)).toEqual([record.id]);
    expect(store.prompts.findByPrefix('%')).toEqual([]);
  });

  it('never loses the audit trail when the file is written by several connections', () => {
    store = tempStore();
    const other = tempStoreSharing(store.dir);
    store.audit.record('SESSION_START', { session_id: 'a' });
    other.audit.record('SESSION_START', { session_id: 'b' });
    store.audit.record('SESSION_END', { session_id: 'a' });
    other.close();
    const lines = readFileSync(path.join(store.dir, AUDIT_FILE), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seq: number });
    expect(lines.map((l) => l.seq)).toEqual([1, 2, 3]);
  });
});

/** A second, independent connection, as another agent-bridge process would open. */
function tempStoreSharing(dir: string) {
  return openStore({ dir });
}

describe('a corrupt or foreign database file', () => {
  it('fails with a clear error instead of being overwritten', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ab-corrupt-'));
    writeFileSync(path.join(dir, DATABASE_FILE), 'this is not a database'.repeat(100));
    expect(() => openStore({ dir })).toThrow(/not a database|file is not a database/);
    expect(readFileSync(path.join(dir, DATABASE_FILE), 'utf8')).toContain('this is not a database');
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('channel books', () => {
  it('forgets what a closing terminal inbox kept under its own name, and nothing else', () => {
    store = tempStore();
    store.sessions.create({ id: 's', agent: 'shell', cwd: '/tmp', pid: 1, recording: null });
    const record = store.prompts.create('s', yesNoPrompt(), 60_000, 'screen');
    store.channels.recordPromptMessage({
      promptId: record.id,
      channel: 'terminal:123',
      chatId: 'local',
      messageId: '1',
    });
    store.channels.recordPromptMessage({
      promptId: record.id,
      channel: 'telegram',
      chatId: '42',
      messageId: '7',
    });
    store.channels.setState('terminal:123', 'message_cursor', '5');
    store.channels.forget('terminal:123');
    expect(store.channels.promptMessages(record.id, 'terminal:123')).toEqual([]);
    expect(store.channels.getState('terminal:123', 'message_cursor')).toBeNull();
    expect(store.channels.promptMessages(record.id, 'telegram')).toHaveLength(1);
  });
});
