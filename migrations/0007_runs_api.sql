-- The run resource of the dashboard API (issue 10): steps, model usage, pull requests, and the
-- indexes its list, filters and paging need.

-- Model usage summed over every call of the run (zeros for runs without a model).
ALTER TABLE runs ADD COLUMN model_calls   integer        NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN input_tokens  bigint         NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN output_tokens bigint         NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN cost_usd      numeric(14, 6) NOT NULL DEFAULT 0;

-- The steps of a run in order: one row per pipeline step as it starts.
CREATE TABLE run_steps (
  run_id       uuid        NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  position     integer     NOT NULL,
  name         text        NOT NULL,
  state        text        NOT NULL CHECK (state IN ('running', 'succeeded', 'failed')),
  started_at   timestamptz NOT NULL DEFAULT now(),
  finished_at  timestamptz NULL,
  PRIMARY KEY (run_id, position)
);

-- Pull requests a run opened or updated (found-or-created per repository). A re-run updates the
-- open pull request, which then points at the newer run; deleting a run keeps the record.
CREATE TABLE pull_requests (
  id          bigserial   PRIMARY KEY,
  run_id      uuid        NULL REFERENCES runs (id) ON DELETE SET NULL,
  project     text        NOT NULL,
  ticket      text        NULL,
  repo        text        NOT NULL,
  url         text        NOT NULL,
  number      integer     NOT NULL,
  state       text        NOT NULL CHECK (state IN ('open', 'merged', 'closed')),
  opened_at   timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project, repo, number)
);
CREATE INDEX pull_requests_run ON pull_requests (run_id);
CREATE INDEX pull_requests_opened_at ON pull_requests (opened_at DESC, id DESC);

-- Newest first with a stable order for paging, alone and under the common filters.
DROP INDEX IF EXISTS runs_created_at;
CREATE INDEX runs_created_at ON runs (created_at DESC, id DESC);
CREATE INDEX runs_state_created_at ON runs (state, created_at DESC, id DESC);
CREATE INDEX runs_project_state_created_at ON runs (project, state, created_at DESC, id DESC);
DROP INDEX IF EXISTS runs_project_state;
CREATE INDEX runs_ticket ON runs (project, ticket);
-- Retention: finished runs by age.
CREATE INDEX runs_finished_at ON runs (finished_at) WHERE finished_at IS NOT NULL;
