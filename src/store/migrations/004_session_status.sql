-- What each agent last reported of itself (Claude Code's status line: model, context use, cost, plan rate
-- limits), as JSON, for the footer under its messages in chat. NULL until it reports.
ALTER TABLE sessions ADD COLUMN usage TEXT;
