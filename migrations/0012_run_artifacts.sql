-- Run artifacts: what a run keeps beyond its events (security-scan's SARIF and markdown report),
-- served by `GET /api/runs/:id/artifacts` and `…/artifacts/:name`. One row per name and run;
-- saving a name again replaces it. They go with their run (deletion, retention) by cascade.
-- The content is stored as UTF-8 bytes (bytea): a text column would refuse a NUL character.

CREATE TABLE run_artifacts (
  run_id      uuid        NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  name        text        NOT NULL CHECK (name ~ '^[A-Za-z0-9._-]{1,100}$' AND position('..' IN name) = 0),
  media_type  text        NOT NULL,
  content     bytea       NOT NULL,
  size_bytes  integer     NOT NULL CHECK (size_bytes >= 0),
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, name)
);
