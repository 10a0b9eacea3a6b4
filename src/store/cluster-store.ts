import type { Clock } from '../core/clock.js';
import type { AgentUsage } from '../core/events.js';
import type { ReplyAction } from '../core/prompt.js';
import { redactDeep, redactSecrets } from '../core/redact.js';
import type { Database } from './database.js';
import { PromptStore, type PromptRecord } from './prompt-store.js';
import type { SessionStatus } from './session-store.js';

/** What a node says of one of its sessions (the hub's mirror is made of it). */
export interface SessionSnapshot {
  id: string;
  agent: string;
  cwd: string;
  label: string;
  /** The node machine's own host name (the mirror is listed under the node's name). */
  hostname: string;
  startedAt: number;
  endedAt: number | null;
  exitCode: number | null;
  status: SessionStatus;
  agentSessionId: string | null;
  usage: AgentUsage | null;
  answerKey: string | null;
  name: string | null;
  firstPrompt: string | null;
}

/** What a node says of one of its prompts: the record, with a sealed answer's box never included. */
export type PromptSnapshot = Omit<PromptRecord, 'reply' | 'screenKey'> & { reply: ReplyAction | null };

export interface NodeRecord {
  name: string;
  hostname: string;
  info: unknown;
  seenAt: number;
}

export interface OutboxEntry {
  /** Unique per request: publishing it twice is one message (JetStream's message id). */
  id: string;
  subject: string;
  payload: string;
}

/** Why a node's word about a session or prompt was not taken (it is not that node's to say). */
export type MirrorRefusal = string;

/**
 * The cluster's rows: on a hub, mirrors of the nodes' sessions and prompts (made only from what each node says
 * of its own), the nodes it heard of and the requests it has for them; on both, positions kept across restarts.
 */
export class ClusterStore {
  private readonly prompts: PromptStore;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {
    this.prompts = new PromptStore(db, clock);
  }

  getCursor(name: string): number | null {
    const row = this.db.prepare('SELECT value FROM cluster_cursors WHERE name = ?').get(name) as
      { value: number } | undefined;
    return row?.value ?? null;
  }

  setCursor(name: string, value: number): void {
    this.db.prepare('INSERT OR REPLACE INTO cluster_cursors (name, value) VALUES (?, ?)').run(name, value);
  }

  /** Runs `apply` once per stream sequence: an event delivered again (after a crash before its ack) is skipped. */
  applyOnce(cursor: string, sequence: number, apply: () => void): boolean {
    return this.db
      .transaction(() => {
        const last = this.getCursor(cursor) ?? 0;
        if (sequence <= last) return false;
        apply();
        this.setCursor(cursor, sequence);
        return true;
      })
      .immediate();
  }

  /** The node a session is mirrored from; null for this machine's own; undefined when there is none. */
  nodeOf(sessionId: string): string | null | undefined {
    const row = this.db.prepare('SELECT node FROM sessions WHERE id = ?').get(sessionId) as
      { node: string | null } | undefined;
    return row ? row.node : undefined;
  }

  /** A node's session, mirrored; refused when the id is this machine's own session or another node's. */
  mirrorSession(node: string, s: SessionSnapshot, approveFrom: string[]): MirrorRefusal | null {
    const owner = this.nodeOf(s.id);
    if (owner === null) return `session ${s.id.slice(0, 8)} is the hub's own`;
    if (owner !== undefined && owner !== node) return `session ${s.id.slice(0, 8)} belongs to ${owner}`;
    this.db
      .prepare(
        `INSERT INTO sessions (id, agent, cwd, host, pid, owner_pid, owner_start, started_at, ended_at, exit_code,
           status, agent_session_id, recording, approve_from, label, usage, answer_key, name, first_prompt, node)
         VALUES (?, ?, ?, ?, NULL, 0, NULL, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET agent = excluded.agent, cwd = excluded.cwd, ended_at = excluded.ended_at,
           exit_code = excluded.exit_code, status = excluded.status, agent_session_id = excluded.agent_session_id,
           approve_from = excluded.approve_from, label = excluded.label, usage = excluded.usage,
           answer_key = excluded.answer_key, name = excluded.name, first_prompt = excluded.first_prompt
         WHERE sessions.node = excluded.node`,
      )
      .run(
        s.id,
        s.agent,
        s.cwd,
        node,
        s.startedAt,
        s.endedAt,
        s.exitCode,
        s.status,
        s.agentSessionId,
        JSON.stringify(approveFrom),
        s.label,
        s.usage ? JSON.stringify(s.usage) : null,
        s.answerKey,
        s.name === null ? null : redactSecrets(s.name),
        s.firstPrompt === null ? null : redactSecrets(s.firstPrompt),
        node,
      );
    return null;
  }

  /** A node's prompt, mirrored as the node has it now; refused unless its session is that node's mirror. */
  mirrorPrompt(node: string, p: PromptSnapshot): MirrorRefusal | null {
    if (this.nodeOf(p.sessionId) !== node) return `session ${p.sessionId.slice(0, 8)} is not ${node}'s`;
    const existing = this.db.prepare('SELECT session_id FROM prompts WHERE id = ?').get(p.id) as
      { session_id: string } | undefined;
    if (existing && existing.session_id !== p.sessionId)
      return `prompt ${p.id.slice(0, 8)} belongs to another session`;
    this.db
      .transaction(() => {
        this.db
          .prepare(
            `INSERT INTO prompts (id, session_id, kind, confidence, source, excerpt, detail, choices, safe_default,
               allow_session_choice, status, nonce, nonce_used, created_at, expires_at, updated_at, decided_at,
               decided_by, reply, note, multiline, secret)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, confidence = excluded.confidence,
               source = excluded.source, excerpt = excluded.excerpt, detail = excluded.detail,
               choices = excluded.choices, safe_default = excluded.safe_default,
               allow_session_choice = excluded.allow_session_choice, status = excluded.status,
               nonce = excluded.nonce, nonce_used = excluded.nonce_used, expires_at = excluded.expires_at,
               updated_at = excluded.updated_at, decided_at = excluded.decided_at,
               decided_by = excluded.decided_by, reply = excluded.reply, note = excluded.note,
               multiline = excluded.multiline, secret = excluded.secret`,
          )
          .run(...promptRow(p));
        this.db
          .prepare(
            'INSERT OR REPLACE INTO cluster_prompts (prompt_id, node, status, decided_at) VALUES (?, ?, ?, ?)',
          )
          .run(p.id, node, p.status, p.decidedAt);
      })
      .immediate();
    return null;
  }

  /**
   * Mirrored prompts this hub decided (answered or cancelled here) that the node has not yet said anything of:
   * requests to forward to it.
   */
  decidedHere(): Array<PromptRecord & { node: string }> {
    const rows = this.db
      .prepare(
        `SELECT p.id, s.node FROM prompts p
           JOIN sessions s ON s.id = p.session_id
           JOIN cluster_prompts c ON c.prompt_id = p.id
         WHERE s.node IS NOT NULL AND p.status IN ('reply_received', 'canceled') AND p.decided_at IS NOT NULL
           AND NOT (c.status = p.status AND c.decided_at IS p.decided_at)`,
      )
      .all() as Array<{ id: string; node: string }>;
    return rows.map((row) => ({ ...this.prompt(row.id)!, node: row.node }));
  }

  /** Running sessions mirrored from nodes that have text typed for them here, not yet handed over. */
  mirrorsWithInput(): Array<{ id: string; node: string }> {
    return this.db
      .prepare(
        `SELECT s.id, s.node FROM sessions s WHERE s.node IS NOT NULL AND s.status = 'active'
           AND EXISTS (SELECT 1 FROM session_inputs i WHERE i.session_id = s.id AND i.delivered_at IS NULL)`,
      )
      .all() as Array<{ id: string; node: string }>;
  }

  recordNode(name: string, hostname: string, info: unknown): void {
    this.db
      .prepare('INSERT OR REPLACE INTO cluster_nodes (name, hostname, info, seen_at) VALUES (?, ?, ?, ?)')
      .run(name, hostname, JSON.stringify(info), this.clock.now());
  }

  nodes(): NodeRecord[] {
    const rows = this.db.prepare('SELECT * FROM cluster_nodes ORDER BY name').all() as Array<{
      name: string;
      hostname: string;
      info: string;
      seen_at: number;
    }>;
    return rows.map((r) => ({
      name: r.name,
      hostname: r.hostname,
      info: JSON.parse(r.info) as unknown,
      seenAt: r.seen_at,
    }));
  }

  /** Something to publish; the same id twice is one entry. True when it is new. */
  enqueue(entry: OutboxEntry): boolean {
    return (
      this.db
        .prepare(
          'INSERT OR IGNORE INTO cluster_outbox (id, subject, payload, created_at) VALUES (?, ?, ?, ?)',
        )
        .run(entry.id, entry.subject, entry.payload, this.clock.now()).changes === 1
    );
  }

  /** Whether an entry with this id was ever enqueued (a request a node already handled). */
  has(id: string): boolean {
    return this.db.prepare('SELECT 1 FROM cluster_outbox WHERE id = ?').get(id) !== undefined;
  }

  unsent(): OutboxEntry[] {
    return this.db
      .prepare(
        'SELECT id, subject, payload FROM cluster_outbox WHERE sent_at IS NULL ORDER BY created_at, rowid',
      )
      .all() as OutboxEntry[];
  }

  /** The bus has it: its payload (typed text, an answer) is not kept. */
  markSent(id: string): void {
    this.db
      .prepare('UPDATE cluster_outbox SET sent_at = ?, payload = NULL WHERE id = ?')
      .run(this.clock.now(), id);
  }

  /** Prompts changed at or after `since` (ms), oldest change first: what a node publishes. */
  promptsChangedSince(since: number): PromptRecord[] {
    const ids = this.db
      .prepare('SELECT id FROM prompts WHERE updated_at >= ? ORDER BY updated_at, id')
      .all(since) as Array<{ id: string }>;
    return ids.map((row) => this.prompt(row.id)!);
  }

  private prompt(id: string): PromptRecord | null {
    return this.prompts.get(id);
  }
}

/** A mirrored prompt's row, redacted again here: a node's word is an outside input like any other. */
function promptRow(p: PromptSnapshot): Array<string | number | null> {
  return [
    p.id,
    p.sessionId,
    p.kind,
    p.confidence,
    p.source,
    redactSecrets(p.excerpt),
    redactSecrets(p.detail),
    JSON.stringify(redactDeep(p.choices)),
    p.safeDefault ? JSON.stringify(p.safeDefault) : null,
    p.allowForSessionChoice,
    p.status,
    p.nonce,
    p.nonceUsed ? 1 : 0,
    p.createdAt,
    p.expiresAt,
    p.updatedAt,
    p.decidedAt,
    p.decidedBy,
    p.reply ? JSON.stringify(p.reply) : null,
    p.note,
    p.multiline ? 1 : 0,
    p.secret ? 1 : 0,
  ];
}
