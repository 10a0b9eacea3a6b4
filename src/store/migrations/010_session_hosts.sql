-- Sessions that outlive agent-bridge (issue 18): a terminal session's PTY is held by a session host process of
-- its own. The host's pid and start time (the session lives as long as it does) and its socket; whether the
-- web may see the session; how many of its finished lines of output the chats have been given. The owner
-- (owner_pid, owner_start) is the session's controller: the agent-bridge process that applies its prompts
-- and answers, which changes when another one takes the session over.
ALTER TABLE sessions ADD COLUMN host_pid INTEGER;
ALTER TABLE sessions ADD COLUMN host_start INTEGER;
ALTER TABLE sessions ADD COLUMN host_socket TEXT;
ALTER TABLE sessions ADD COLUMN web_view INTEGER NOT NULL DEFAULT 1;
ALTER TABLE sessions ADD COLUMN lines_read INTEGER NOT NULL DEFAULT 0;
-- A prompt read off the screen is known again by its key when a new controller reads the same screen.
ALTER TABLE prompts ADD COLUMN screen_key TEXT;
