import type { Clock } from '../core/clock.js';
import type { Database } from './database.js';

/** A chat thread with a session of its own, and the worktree it runs in (if isolated). */
export interface ThreadRecord {
  channel: string;
  chatId: string;
  threadId: string;
  repo: string;
  /** The session's label: `<repo>#<thread id>`. */
  label: string;
  worktreePath: string | null;
  branch: string | null;
  /** closed: thread archived and worktree gone; kept: closed, worktree kept for its uncommitted changes. */
  state: 'active' | 'closed' | 'kept';
  createdAt: number;
  updatedAt: number;
}

interface Row {
  channel: string;
  chat_id: string;
  thread_id: string;
  repo: string;
  label: string;
  worktree_path: string | null;
  branch: string | null;
  state: ThreadRecord['state'];
  created_at: number;
  updated_at: number;
}

/** Threads ↔ sessions ↔ worktrees, so a restart finds every thread's session and worktree again. */
export class ThreadStore {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  upsert(record: Omit<ThreadRecord, 'createdAt' | 'updatedAt'>): ThreadRecord {
    const now = this.clock.now();
    this.db
      .prepare(
        `INSERT INTO thread_sessions (channel, chat_id, thread_id, repo, label, worktree_path, branch, state, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (channel, chat_id, thread_id) DO UPDATE SET repo = excluded.repo, label = excluded.label,
           worktree_path = excluded.worktree_path, branch = excluded.branch, state = excluded.state,
           updated_at = excluded.updated_at`,
      )
      .run(
        record.channel,
        record.chatId,
        record.threadId,
        record.repo,
        record.label,
        record.worktreePath,
        record.branch,
        record.state,
        now,
        now,
      );
    return this.get(record.channel, record.chatId, record.threadId)!;
  }

  get(channel: string, chatId: string, threadId: string): ThreadRecord | null {
    const row = this.db
      .prepare('SELECT * FROM thread_sessions WHERE channel = ? AND chat_id = ? AND thread_id = ?')
      .get(channel, chatId, threadId) as Row | undefined;
    return row ? fromRow(row) : null;
  }

  setState(channel: string, chatId: string, threadId: string, state: ThreadRecord['state']): void {
    this.db
      .prepare(
        'UPDATE thread_sessions SET state = ?, updated_at = ? WHERE channel = ? AND chat_id = ? AND thread_id = ?',
      )
      .run(state, this.clock.now(), channel, chatId, threadId);
  }

  /** The active thread whose session has this label (`<repo>#<thread id>`), if any. */
  activeByLabel(label: string): ThreadRecord | null {
    const row = this.db
      .prepare("SELECT * FROM thread_sessions WHERE label = ? AND state = 'active' LIMIT 1")
      .get(label) as Row | undefined;
    return row ? fromRow(row) : null;
  }

  /** Every thread record, newest first; `repo` narrows to one repository. */
  list(repo?: string): ThreadRecord[] {
    const rows = (
      repo
        ? this.db.prepare('SELECT * FROM thread_sessions WHERE repo = ? ORDER BY created_at DESC').all(repo)
        : this.db.prepare('SELECT * FROM thread_sessions ORDER BY created_at DESC').all()
    ) as Row[];
    return rows.map(fromRow);
  }
}

function fromRow(row: Row): ThreadRecord {
  return {
    channel: row.channel,
    chatId: row.chat_id,
    threadId: row.thread_id,
    repo: row.repo,
    label: row.label,
    worktreePath: row.worktree_path,
    branch: row.branch,
    state: row.state,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
