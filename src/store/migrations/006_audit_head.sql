-- The audit chain's head: the last entry's seq and hash, written with every entry. `audit verify` compares the
-- log's end with it, so a log cut short or deleted is reported, not found "intact"; writers continue the chain
-- from it, so a cut log is never silently restarted.
CREATE TABLE audit_head (
  id   INTEGER PRIMARY KEY CHECK (id = 1),
  seq  INTEGER NOT NULL,
  hash TEXT    NOT NULL
);
INSERT INTO audit_head (id, seq, hash) SELECT 1, seq, hash FROM audit_events ORDER BY seq DESC LIMIT 1;
