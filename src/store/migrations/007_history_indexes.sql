-- Every query on a hot path finds its rows through an index, so a long history costs nothing (issue 14).
CREATE INDEX IF NOT EXISTS sessions_by_status ON sessions (status, started_at);
CREATE INDEX IF NOT EXISTS sessions_by_start ON sessions (started_at);
CREATE INDEX IF NOT EXISTS sessions_by_label ON sessions (label, agent, started_at);
CREATE INDEX IF NOT EXISTS prompts_by_created ON prompts (created_at);
-- A relay looks for outcomes it has not shown yet: few rows, among everything it ever sent.
CREATE INDEX IF NOT EXISTS prompt_messages_unshown ON prompt_messages (channel) WHERE outcome_shown = 0;
CREATE INDEX IF NOT EXISTS thread_sessions_by_label ON thread_sessions (label, state);
