-- Sessions for people (issue 15): the name a person gave one, the first thing they asked of it, and how a
-- session run in a terminal (`agent-bridge run`) shares its screen with the web UI: the unix socket it
-- listens on, and whether the person allowed typing from the web (`run --web-input`).
ALTER TABLE sessions ADD COLUMN name TEXT;
ALTER TABLE sessions ADD COLUMN first_prompt TEXT;
ALTER TABLE sessions ADD COLUMN view_socket TEXT;
ALTER TABLE sessions ADD COLUMN web_input INTEGER NOT NULL DEFAULT 0;
-- Recordings are listed with the names of their sessions.
CREATE INDEX IF NOT EXISTS sessions_by_recording ON sessions (recording);
