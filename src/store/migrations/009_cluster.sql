-- Many machines (issue 19). A hub mirrors the sessions and prompts of other machines (nodes) from their events:
-- `node` names the machine that runs a session (NULL: this machine). The node's own store stays the truth.
ALTER TABLE sessions ADD COLUMN node TEXT;
CREATE INDEX IF NOT EXISTS sessions_by_node ON sessions (node) WHERE node IS NOT NULL;
-- Nodes a hub has heard of: what each said of itself (its machine, repositories, agents) and when.
CREATE TABLE cluster_nodes (
  name     TEXT    PRIMARY KEY,
  hostname TEXT    NOT NULL,
  info     TEXT    NOT NULL,
  seen_at  INTEGER NOT NULL
);
-- Positions kept across restarts: the last stream sequence a hub applied (an event delivered twice is applied
-- once), and how far a node has published its prompts and messages.
CREATE TABLE cluster_cursors (
  name  TEXT    PRIMARY KEY,
  value INTEGER NOT NULL
);
-- What a node last said of each mirrored prompt: the hub forwards only what it decided itself.
CREATE TABLE cluster_prompts (
  prompt_id  TEXT    PRIMARY KEY,
  node       TEXT    NOT NULL,
  status     TEXT    NOT NULL,
  decided_at INTEGER
);
-- What is to be published (a hub's answers, typed text and requests for nodes; a node's results), kept until
-- JetStream has it, under an id that makes a second publish of it a duplicate; the payload goes once sent.
CREATE TABLE cluster_outbox (
  id         TEXT    PRIMARY KEY,
  subject    TEXT    NOT NULL,
  payload    TEXT,
  created_at INTEGER NOT NULL,
  sent_at    INTEGER
);
CREATE INDEX IF NOT EXISTS cluster_outbox_unsent ON cluster_outbox (created_at) WHERE sent_at IS NULL;
-- A node publishes its prompts by when they last changed.
CREATE INDEX IF NOT EXISTS prompts_by_update ON prompts (updated_at);
