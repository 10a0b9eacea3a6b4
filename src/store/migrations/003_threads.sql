-- Threads: prompts sent into a thread remember it (a Discord thread is its own channel to edit in), and each
-- chat thread that runs its own session is kept with its worktree, so both survive a restart.
ALTER TABLE prompt_messages ADD COLUMN thread_id TEXT;

CREATE TABLE thread_sessions (
  channel       TEXT    NOT NULL,
  chat_id       TEXT    NOT NULL,
  thread_id     TEXT    NOT NULL,
  repo          TEXT    NOT NULL,
  label         TEXT    NOT NULL,
  worktree_path TEXT,
  branch        TEXT,
  state         TEXT    NOT NULL CHECK (state IN ('active', 'closed', 'kept')),
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL,
  PRIMARY KEY (channel, chat_id, thread_id)
);
