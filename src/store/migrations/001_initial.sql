-- Sessions, prompts, replies and the audit replica (seed 004 §10.1). Times are Unix milliseconds.
CREATE TABLE sessions (
  id               TEXT    PRIMARY KEY,
  agent            TEXT    NOT NULL,
  cwd              TEXT    NOT NULL,
  host             TEXT    NOT NULL,
  pid              INTEGER,
  owner_pid        INTEGER NOT NULL,
  started_at       INTEGER NOT NULL,
  ended_at         INTEGER,
  exit_code        INTEGER,
  status           TEXT    NOT NULL DEFAULT 'active'
                           CHECK (status IN ('active', 'completed', 'crashed', 'terminated')),
  agent_session_id TEXT,
  recording        TEXT
);

CREATE TABLE prompts (
  id                   TEXT    PRIMARY KEY,
  session_id           TEXT    NOT NULL REFERENCES sessions (id),
  kind                 TEXT    NOT NULL,
  confidence           TEXT    NOT NULL,
  source               TEXT    NOT NULL,
  excerpt              TEXT    NOT NULL,
  detail               TEXT    NOT NULL,
  choices              TEXT    NOT NULL,
  safe_default         TEXT,
  allow_session_choice INTEGER,
  status               TEXT    NOT NULL DEFAULT 'created',
  nonce                TEXT    NOT NULL,
  nonce_used           INTEGER NOT NULL DEFAULT 0,
  created_at           INTEGER NOT NULL,
  expires_at           INTEGER NOT NULL,
  updated_at           INTEGER NOT NULL,
  decided_at           INTEGER,
  decided_by           TEXT,
  reply                TEXT,
  note                 TEXT
);
CREATE INDEX prompts_by_status ON prompts (status, created_at);
CREATE INDEX prompts_by_session ON prompts (session_id, created_at);

CREATE TABLE replies (
  id          TEXT    PRIMARY KEY,
  prompt_id   TEXT    NOT NULL REFERENCES prompts (id),
  session_id  TEXT    NOT NULL,
  value       TEXT    NOT NULL,
  source      TEXT    NOT NULL CHECK (source IN ('operator', 'timeout_default')),
  decided_by  TEXT    NOT NULL,
  injected_at INTEGER NOT NULL
);

CREATE TABLE audit_events (
  seq       INTEGER PRIMARY KEY,
  ts        TEXT    NOT NULL,
  event     TEXT    NOT NULL,
  line      TEXT    NOT NULL,
  hash      TEXT    NOT NULL
);
