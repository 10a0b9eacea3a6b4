-- Channels: which sessions want remote approvals, what each chat was sent, input typed from chats, messages for
-- chats, and which process hosts each channel (the store is the bus between agent-bridge processes).
ALTER TABLE sessions ADD COLUMN approve_from TEXT NOT NULL DEFAULT '[]';
ALTER TABLE sessions ADD COLUMN label TEXT;

CREATE TABLE prompt_messages (
  prompt_id     TEXT    NOT NULL REFERENCES prompts (id),
  channel       TEXT    NOT NULL,
  chat_id       TEXT    NOT NULL,
  message_id    TEXT    NOT NULL,
  sent_at       INTEGER NOT NULL,
  outcome_shown INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (prompt_id, channel, chat_id)
);
CREATE INDEX prompt_messages_by_message ON prompt_messages (channel, chat_id, message_id);

CREATE TABLE session_inputs (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id   TEXT    NOT NULL REFERENCES sessions (id),
  text         TEXT    NOT NULL,
  sent_by      TEXT    NOT NULL,
  created_at   INTEGER NOT NULL,
  delivered_at INTEGER
);

CREATE TABLE session_messages (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT    NOT NULL REFERENCES sessions (id),
  kind       TEXT    NOT NULL CHECK (kind IN ('message', 'notice')),
  text       TEXT    NOT NULL,
  created_at INTEGER NOT NULL
);

CREATE TABLE channel_state (
  channel TEXT NOT NULL,
  key     TEXT NOT NULL,
  value   TEXT NOT NULL,
  PRIMARY KEY (channel, key)
);

CREATE TABLE channel_hosts (
  channel      TEXT    PRIMARY KEY,
  owner_pid    INTEGER NOT NULL,
  host         TEXT    NOT NULL,
  heartbeat_at INTEGER NOT NULL
);
