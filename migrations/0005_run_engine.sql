-- Run engine (issue 6): heartbeats and owners, capacity admission in strict FIFO order, and the
-- sandboxes of each run (one per declared repository of a multi-repository project).

-- Claim order: strict FIFO of the capacity queue follows this sequence, not wall-clock time.
ALTER TABLE runs ADD COLUMN queue_seq bigserial;
-- The process (instance id) whose consumer took the run, and when it last renewed its heartbeat.
-- The database copy of the heartbeat survives a store flush.
ALTER TABLE runs ADD COLUMN owner text NULL;
ALTER TABLE runs ADD COLUMN heartbeat_at timestamptz NULL;
-- Set when the capacity queue admitted the run; the requests it holds until the run ends.
ALTER TABLE runs ADD COLUMN admitted_at timestamptz NULL;
ALTER TABLE runs ADD COLUMN cpu_request double precision NULL;
ALTER TABLE runs ADD COLUMN memory_request bigint NULL;
CREATE INDEX runs_live_queue ON runs (queue_seq) WHERE state IN ('queued', 'running', 'parked');

CREATE TABLE run_sandboxes (
  run_id       uuid        NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  repo         text        NOT NULL,
  path_prefix  text        NOT NULL DEFAULT '',
  state        text        NOT NULL
               CHECK (state IN ('creating', 'ready', 'destroyed', 'failed')),
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, repo)
);
