import { prefixRange } from './session-store.js';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import type { Confidence, PromptChoice, PromptKind } from '../core/events.js';
import type { DetectedPrompt, ReplyAction } from '../core/prompt.js';
import { OPEN_STATUSES, sourcesOf, type PromptStatus } from '../core/prompt-state.js';
import { redactDeep, redactSecrets } from '../core/redact.js';
import type { Database } from './database.js';

export interface PromptRecord {
  id: string;
  sessionId: string;
  kind: PromptKind;
  confidence: Confidence;
  source: string;
  excerpt: string;
  detail: string;
  choices: PromptChoice[];
  safeDefault: ReplyAction | null;
  allowForSessionChoice: number | null;
  status: PromptStatus;
  nonce: string;
  nonceUsed: boolean;
  createdAt: number;
  expiresAt: number;
  updatedAt: number;
  decidedAt: number | null;
  decidedBy: string | null;
  reply: ReplyAction | null;
  note: string | null;
  /** Words for it may span lines (one bracketed paste, or a protocol). */
  multiline: boolean;
  /** It asks for a secret: its answer is stored only sealed, and shown only as its length. */
  secret: boolean;
  /** How its driver knows it on screen (or from its hook): the same key read again is this prompt. */
  screenKey: string | null;
}

interface Row {
  id: string;
  session_id: string;
  kind: PromptKind;
  confidence: Confidence;
  source: string;
  excerpt: string;
  detail: string;
  choices: string;
  safe_default: string | null;
  allow_session_choice: number | null;
  status: PromptStatus;
  nonce: string;
  nonce_used: number;
  created_at: number;
  expires_at: number;
  updated_at: number;
  decided_at: number | null;
  decided_by: string | null;
  reply: string | null;
  note: string | null;
  multiline: number;
  secret: number;
  screen_key: string | null;
}

function fromRow(row: Row): PromptRecord {
  return {
    id: row.id,
    sessionId: row.session_id,
    kind: row.kind,
    confidence: row.confidence,
    source: row.source,
    excerpt: row.excerpt,
    detail: row.detail,
    choices: JSON.parse(row.choices) as PromptChoice[],
    safeDefault: row.safe_default ? (JSON.parse(row.safe_default) as ReplyAction) : null,
    allowForSessionChoice: row.allow_session_choice,
    status: row.status,
    nonce: row.nonce,
    nonceUsed: row.nonce_used === 1,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    updatedAt: row.updated_at,
    decidedAt: row.decided_at,
    decidedBy: row.decided_by,
    reply: row.reply ? (JSON.parse(row.reply) as ReplyAction) : null,
    note: row.note,
    multiline: row.multiline === 1,
    secret: row.secret === 1,
    screenKey: row.screen_key,
  };
}

export interface Decision {
  promptId: string;
  sessionId: string;
  nonce: string;
  reply: ReplyAction;
  /** Who decided, e.g. `cli:alice`, `telegram:12345`. */
  decidedBy: string;
}

const OPEN_SQL = OPEN_STATUSES.map((s) => `'${s}'`).join(', ');

/**
 * Prompts in SQLite. Every status change is one conditional UPDATE whose row count says whether it happened
 * (seed 004 §6): two racing answers, an answer racing the TTL, a replay of an old tap: exactly one wins.
 */
export class PromptStore {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  create(sessionId: string, prompt: DetectedPrompt, ttlMs: number, source: string): PromptRecord {
    const now = this.clock.now();
    const id = randomUUID();
    this.db
      .prepare(
        `INSERT INTO prompts (id, session_id, kind, confidence, source, excerpt, detail, choices, safe_default,
           allow_session_choice, status, nonce, created_at, expires_at, updated_at, multiline, secret, screen_key)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'created', ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        sessionId,
        prompt.kind,
        prompt.confidence,
        source,
        // Drivers redact what they read; this is the last door before chats and the web see it.
        redactSecrets(prompt.excerpt),
        redactSecrets(prompt.detail),
        JSON.stringify(redactDeep(prompt.choices)),
        prompt.safeDefault ? JSON.stringify(prompt.safeDefault) : null,
        prompt.allowForSessionChoice ?? null,
        randomBytes(16).toString('hex'),
        now,
        now + ttlMs,
        now,
        prompt.multiline === false ? 0 : 1,
        prompt.secret ? 1 : 0,
        // Keys are read off the redacted screen already; redacted again, as everything that is stored.
        redactSecrets(prompt.key),
      );
    return this.get(id)!;
  }

  /** Runs `work` as one write (the store's write lock taken first): all of its changes are kept, or none. */
  atomically<T>(work: () => T): T {
    return this.db.transaction(work).immediate();
  }

  get(id: string): PromptRecord | null {
    const row = this.db.prepare('SELECT * FROM prompts WHERE id = ?').get(id) as Row | undefined;
    return row ? fromRow(row) : null;
  }

  /** Finds a prompt by its full id or a unique prefix (as shown in tables and callback data). */
  findByPrefix(prefix: string): PromptRecord[] {
    const rows = this.db
      .prepare(`SELECT * FROM prompts WHERE id >= ? AND id < ? ORDER BY created_at DESC LIMIT 5`)
      .all(...prefixRange(prefix.toLowerCase())) as Row[];
    return rows.map(fromRow);
  }

  /** Prompts still waiting for a person, oldest first; one session's or all. */
  open(sessionId?: string): PromptRecord[] {
    const rows = sessionId
      ? this.db
          .prepare(
            `SELECT * FROM prompts WHERE status IN (${OPEN_SQL}) AND session_id = ? ORDER BY created_at`,
          )
          .all(sessionId)
      : this.db.prepare(`SELECT * FROM prompts WHERE status IN (${OPEN_SQL}) ORDER BY created_at`).all();
    return (rows as Row[]).map(fromRow);
  }

  /**
   * Not finished yet: waiting for a person, decided and not typed, or typed and not resolved (a controller that
   * died mid-way leaves these; the next one takes them over).
   */
  unfinished(sessionId: string): PromptRecord[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM prompts WHERE session_id = ? AND (status IN (${OPEN_SQL}, 'reply_received', 'injected')
           OR (status = 'expired' AND reply IS NOT NULL)) ORDER BY created_at`,
      )
      .all(sessionId) as Row[];
    return rows.map(fromRow);
  }

  /** Decided by someone, waiting to be typed into the agent (by the process that owns the session). */
  decidedNotInjected(sessionId: string): PromptRecord[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM prompts WHERE session_id = ? AND (status = 'reply_received' OR (status = 'expired' AND reply IS NOT NULL)) ORDER BY decided_at`,
      )
      .all(sessionId) as Row[];
    return rows.map(fromRow);
  }

  recent(limit: number): PromptRecord[] {
    return (
      this.db.prepare('SELECT * FROM prompts ORDER BY created_at DESC LIMIT ?').all(limit) as Row[]
    ).map(fromRow);
  }

  /** A prompt seen on screen turned out to be the one a hook reported exactly: record the better source. */
  markExact(id: string, source: string, detail: string): void {
    this.db
      .prepare("UPDATE prompts SET confidence = 'exact', source = ?, detail = ?, updated_at = ? WHERE id = ?")
      .run(source, redactSecrets(detail), this.clock.now(), id);
  }

  /** A plain guarded transition; true when it happened. */
  transition(id: string, to: PromptStatus, note?: string): boolean {
    const from = sourcesOf(to);
    if (from.length === 0) return false;
    const result = this.db
      .prepare(
        `UPDATE prompts SET status = ?, updated_at = ?, note = COALESCE(?, note)
         WHERE id = ? AND status IN (${from.map(() => '?').join(', ')})`,
      )
      .run(to, this.clock.now(), note ?? null, id, ...from);
    return result.changes === 1;
  }

  /**
   * A person's answer: accepted once, only with the right session and nonce, only before the prompt expires
   * and while it is still open. Returns the updated record, or null when the guard refused it.
   */
  decide(decision: Decision): PromptRecord | null {
    const now = this.clock.now();
    const result = this.db
      .prepare(
        `UPDATE prompts SET status = 'reply_received', nonce_used = 1, decided_at = ?, decided_by = ?, reply = ?, updated_at = ?
         WHERE id = ? AND session_id = ? AND nonce = ? AND nonce_used = 0 AND expires_at > ? AND status IN (${OPEN_SQL})`,
      )
      .run(
        now,
        decision.decidedBy,
        JSON.stringify(decision.reply),
        now,
        decision.promptId,
        decision.sessionId,
        decision.nonce,
        now,
      );
    return result.changes === 1 ? this.get(decision.promptId) : null;
  }

  /** The TTL ran out: the same guard as decide(), so a late answer and the expiry cannot both win. */
  expire(id: string): PromptRecord | null {
    const now = this.clock.now();
    const result = this.db
      .prepare(
        `UPDATE prompts SET status = 'expired', nonce_used = 1, decided_at = ?, decided_by = 'auto:timeout',
           reply = safe_default, updated_at = ?
         WHERE id = ? AND nonce_used = 0 AND expires_at <= ? AND status IN (${OPEN_SQL})`,
      )
      .run(now, now, id, now);
    return result.changes === 1 ? this.get(id) : null;
  }

  /** A sealed answer that could not be typed is forgotten too: nothing of it stays but its length. */
  forgetSealed(id: string): void {
    const record = this.get(id);
    if (record?.reply?.type !== 'sealed' || record.reply.box === null) return;
    const spent = { type: 'sealed', box: null, length: record.reply.length };
    this.db.prepare('UPDATE prompts SET reply = ? WHERE id = ?').run(JSON.stringify(spent), id);
  }

  /** Closes an open prompt without an answer from a channel (answered at the terminal, cancelled, session gone). */
  close(id: string, to: 'resolved' | 'canceled' | 'failed', decidedBy: string, note: string): boolean {
    const now = this.clock.now();
    const result = this.db
      .prepare(
        `UPDATE prompts SET status = ?, nonce_used = 1, decided_at = ?, decided_by = ?, note = ?, updated_at = ?
         WHERE id = ? AND nonce_used = 0 AND status IN (${OPEN_SQL})`,
      )
      .run(to, now, decidedBy, note, now, id);
    return result.changes === 1;
  }

  /**
   * Records bytes typed into the agent for a decided prompt: reply_received/expired -> injected. A sealed
   * secret answer loses its box here: from now on only its length is kept.
   */
  markInjected(record: PromptRecord, value: string, source: 'operator' | 'timeout_default'): boolean {
    const now = this.clock.now();
    return this.db
      .transaction(() => {
        if (!this.transition(record.id, 'injected')) return false;
        if (record.reply?.type === 'sealed') {
          const spent = { type: 'sealed', box: null, length: record.reply.length };
          this.db.prepare('UPDATE prompts SET reply = ? WHERE id = ?').run(JSON.stringify(spent), record.id);
        }
        this.db
          .prepare(
            'INSERT INTO replies (id, prompt_id, session_id, value, source, decided_by, injected_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
          )
          .run(randomUUID(), record.id, record.sessionId, value, source, record.decidedBy ?? 'unknown', now);
        return true;
      })
      .immediate();
  }
}
