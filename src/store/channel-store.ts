import { hostname } from 'node:os';
import type { Clock } from '../core/clock.js';
import type { IsAlive, ProcessRef } from '../core/process-ref.js';
import { redactSecrets } from '../core/redact.js';
import type { Database } from './database.js';

export interface SentPrompt {
  promptId: string;
  channel: string;
  chatId: string;
  /** The thread the message is in, where the platform has threads. */
  threadId?: string;
  messageId: string;
  outcomeShown: boolean;
}

export interface SessionInput {
  id: number;
  sessionId: string;
  text: string;
  sentBy: string;
}

export interface SessionMessage {
  id: number;
  sessionId: string;
  kind: 'message' | 'notice';
  text: string;
  createdAt: number;
}

/** A host's lease on a channel is lost when its heartbeat is older than this. */
export const HOST_LEASE_MS = 15_000;

/**
 * What channels need from the store, shared by every agent-bridge process: prompt messages sent per chat,
 * input typed in chats for a session, agent messages for chats, per-chat state, and the channel host lease.
 */
export class ChannelStore {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  recordPromptMessage(m: Omit<SentPrompt, 'outcomeShown'>): void {
    this.db
      .prepare(
        'INSERT OR REPLACE INTO prompt_messages (prompt_id, channel, chat_id, thread_id, message_id, sent_at) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(m.promptId, m.channel, m.chatId, m.threadId ?? null, m.messageId, this.clock.now());
  }

  promptMessages(promptId: string, channel: string): SentPrompt[] {
    return (
      this.db
        .prepare('SELECT * FROM prompt_messages WHERE prompt_id = ? AND channel = ?')
        .all(promptId, channel) as SentRow[]
    ).map(sentPrompt);
  }

  promptForMessage(channel: string, chatId: string, messageId: string): string | null {
    const row = this.db
      .prepare('SELECT prompt_id FROM prompt_messages WHERE channel = ? AND chat_id = ? AND message_id = ?')
      .get(channel, chatId, messageId) as { prompt_id: string } | undefined;
    return row?.prompt_id ?? null;
  }

  /** Prompts sent to this channel whose outcome the chat has not been shown yet, with their final status. */
  unshownOutcomes(channel: string): Array<SentPrompt & { status: string }> {
    const rows = this.db
      .prepare(
        `SELECT m.*, p.status FROM prompt_messages m JOIN prompts p ON p.id = m.prompt_id
         WHERE m.channel = ? AND m.outcome_shown = 0 AND p.status NOT IN ('created', 'routed', 'awaiting_reply', 'reply_received')`,
      )
      .all(channel) as Array<SentRow & { status: string }>;
    return rows.map((r) => ({ ...sentPrompt(r), status: r.status }));
  }

  markOutcomeShown(promptId: string, channel: string, chatId: string): void {
    this.db
      .prepare(
        'UPDATE prompt_messages SET outcome_shown = 1 WHERE prompt_id = ? AND channel = ? AND chat_id = ?',
      )
      .run(promptId, channel, chatId);
  }

  addInput(sessionId: string, text: string, sentBy: string): void {
    this.db
      .prepare('INSERT INTO session_inputs (session_id, text, sent_by, created_at) VALUES (?, ?, ?, ?)')
      .run(sessionId, text, sentBy, this.clock.now());
  }

  /** Takes the session's undelivered inputs, marking them delivered in the same transaction. */
  takeInputs(sessionId: string): SessionInput[] {
    return this.db
      .transaction(() => {
        const rows = this.db
          .prepare(
            'SELECT id, session_id, text, sent_by FROM session_inputs WHERE session_id = ? AND delivered_at IS NULL ORDER BY id',
          )
          .all(sessionId) as Array<{ id: number; session_id: string; text: string; sent_by: string }>;
        // Once taken to be typed, the text is kept only redacted: the store is no place for a pasted token.
        const mark = this.db.prepare('UPDATE session_inputs SET delivered_at = ?, text = ? WHERE id = ?');
        for (const row of rows) mark.run(this.clock.now(), redactSecrets(row.text), row.id);
        return rows.map((r) => ({ id: r.id, sessionId: r.session_id, text: r.text, sentBy: r.sent_by }));
      })
      .immediate();
  }

  /** A message for the session's chats; secrets are redacted here, whoever wrote it (screen, hook, notice). */
  addMessage(sessionId: string, kind: 'message' | 'notice', text: string): void {
    this.db
      .prepare('INSERT INTO session_messages (session_id, kind, text, created_at) VALUES (?, ?, ?, ?)')
      .run(sessionId, kind, redactSecrets(text), this.clock.now());
  }

  messagesAfter(id: number): SessionMessage[] {
    const rows = this.db
      .prepare('SELECT * FROM session_messages WHERE id > ? ORDER BY id LIMIT 100')
      .all(id) as Array<{
      id: number;
      session_id: string;
      kind: 'message' | 'notice';
      text: string;
      created_at: number;
    }>;
    return rows.map((r) => ({
      id: r.id,
      sessionId: r.session_id,
      kind: r.kind,
      text: r.text,
      createdAt: r.created_at,
    }));
  }

  lastMessageId(): number {
    return (
      this.db.prepare('SELECT COALESCE(MAX(id), 0) AS id FROM session_messages').get() as { id: number }
    ).id;
  }

  getState(channel: string, key: string): string | null {
    const row = this.db
      .prepare('SELECT value FROM channel_state WHERE channel = ? AND key = ?')
      .get(channel, key) as { value: string } | undefined;
    return row?.value ?? null;
  }

  setState(channel: string, key: string, value: string): void {
    this.db
      .prepare('INSERT OR REPLACE INTO channel_state (channel, key, value) VALUES (?, ?, ?)')
      .run(channel, key, value);
  }

  /**
   * Takes or renews `owner`'s lease on hosting a channel (only one process may poll a bot token). Granted when
   * free, stale, held by a process that is gone (by pid and start time: a reused pid does not hold it), or
   * already the owner's.
   */
  acquireHost(channel: string, isAlive: IsAlive, owner: ProcessRef): boolean {
    const now = this.clock.now();
    return this.db
      .transaction(() => {
        const row = this.hostRow(channel);
        const ours = row?.owner_pid === owner.pid && row.host === hostname();
        const stale =
          !row ||
          now - row.heartbeat_at > HOST_LEASE_MS ||
          (row.host === hostname() && !isAlive({ pid: row.owner_pid, startTime: row.owner_start }));
        if (!ours && !stale) return false;
        this.db
          .prepare(
            'INSERT OR REPLACE INTO channel_hosts (channel, owner_pid, owner_start, host, heartbeat_at) VALUES (?, ?, ?, ?, ?)',
          )
          .run(channel, owner.pid, owner.startTime, hostname(), now);
        return true;
      })
      .immediate();
  }

  /** Forgets everything kept under a relay's own books (a terminal inbox that is closing). */
  forget(books: string): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM prompt_messages WHERE channel = ?').run(books);
      this.db.prepare('DELETE FROM channel_state WHERE channel = ?').run(books);
    })();
  }

  releaseHost(channel: string): void {
    this.db
      .prepare('DELETE FROM channel_hosts WHERE channel = ? AND owner_pid = ? AND host = ?')
      .run(channel, process.pid, hostname());
  }

  hostAlive(channel: string, isAlive: IsAlive): boolean {
    const row = this.hostRow(channel);
    if (!row || this.clock.now() - row.heartbeat_at > HOST_LEASE_MS) return false;
    return row.host !== hostname() || isAlive({ pid: row.owner_pid, startTime: row.owner_start });
  }

  private hostRow(channel: string): HostRow | undefined {
    return this.db
      .prepare('SELECT owner_pid, owner_start, host, heartbeat_at FROM channel_hosts WHERE channel = ?')
      .get(channel) as HostRow | undefined;
  }
}

interface HostRow {
  owner_pid: number;
  owner_start: number | null;
  host: string;
  heartbeat_at: number;
}

interface SentRow {
  prompt_id: string;
  channel: string;
  chat_id: string;
  thread_id: string | null;
  message_id: string;
  outcome_shown: number;
}

function sentPrompt(r: SentRow): SentPrompt {
  return {
    promptId: r.prompt_id,
    channel: r.channel,
    chatId: r.chat_id,
    ...(r.thread_id ? { threadId: r.thread_id } : {}),
    messageId: r.message_id,
    outcomeShown: r.outcome_shown === 1,
  };
}
