-- Tickets, runs and run events: the system of record for run state (spec: "Startup rules").

CREATE TABLE tickets (
  platform    text        NOT NULL,
  project     text        NOT NULL,
  ticket      text        NOT NULL,
  state       text        NOT NULL DEFAULT 'pending'
              CHECK (state IN ('pending', 'enqueued', 'in_progress', 'done', 'failed')),
  pipeline    text        NULL,
  run_id      uuid        NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (platform, project, ticket)
);
CREATE INDEX tickets_state ON tickets (state, updated_at);

CREATE TABLE runs (
  id           uuid        PRIMARY KEY,
  platform     text        NOT NULL,
  project      text        NOT NULL,
  ticket       text        NULL,          -- null for a pull-request command without a ticket
  pipeline     text        NOT NULL,
  state        text        NOT NULL
               CHECK (state IN ('queued', 'running', 'parked', 'succeeded', 'failed', 'cancelled')),
  created_at   timestamptz NOT NULL DEFAULT now(),
  started_at   timestamptz NULL,
  finished_at  timestamptz NULL,
  result       jsonb       NULL,
  error        text        NULL
);
-- One live run per ticket, by construction: survives a store flush and any race in the claim path.
CREATE UNIQUE INDEX runs_one_live_per_ticket ON runs (platform, project, ticket)
  WHERE ticket IS NOT NULL AND state IN ('queued', 'running', 'parked');
CREATE INDEX runs_created_at ON runs (created_at DESC);
CREATE INDEX runs_project_state ON runs (project, state);

ALTER TABLE tickets ADD CONSTRAINT tickets_run_fk FOREIGN KEY (run_id) REFERENCES runs (id) ON DELETE SET NULL;

CREATE TABLE run_events (
  run_id   uuid        NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  seq      integer     NOT NULL,
  at       timestamptz NOT NULL DEFAULT now(),
  kind     text        NOT NULL,
  sandbox  text        NULL,
  text     text        NOT NULL,
  PRIMARY KEY (run_id, seq)
);
