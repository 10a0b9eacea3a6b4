-- A pid alone is fooled by reuse and zombies: owners are also known by their process's start time.
ALTER TABLE sessions ADD COLUMN owner_start INTEGER;
ALTER TABLE channel_hosts ADD COLUMN owner_start INTEGER;
-- The session's public key (X25519, base64 DER): answers to its secret prompts are sealed to it, so no
-- password typed for an agent is ever stored in clear.
ALTER TABLE sessions ADD COLUMN answer_key TEXT;
-- Whether words may span lines (sent as one bracketed paste), and whether the answer is a secret.
ALTER TABLE prompts ADD COLUMN multiline INTEGER NOT NULL DEFAULT 1;
ALTER TABLE prompts ADD COLUMN secret INTEGER NOT NULL DEFAULT 0;
-- Text typed into sessions is looked up by session and delivery on every store change.
CREATE INDEX IF NOT EXISTS session_inputs_pending ON session_inputs (session_id, delivered_at);
