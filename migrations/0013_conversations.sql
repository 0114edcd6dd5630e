-- Conversations on tickets and pull requests (issue 15).

-- A ticket whose run handed it back (asked a question, found a contradiction, or judged the
-- ticket not implementable) is `parked` until an answer resumes it or a retry replaces its run.
ALTER TABLE tickets DROP CONSTRAINT IF EXISTS tickets_state_check;
ALTER TABLE tickets ADD CONSTRAINT tickets_state_check
  CHECK (state IN ('pending', 'enqueued', 'in_progress', 'done', 'failed', 'parked'));

-- The hand-back of a parked run and its answer: one row per run that asked. The first answer
-- wins by a conditional update (`answer IS NULL`); later ones are refused (409).
CREATE TABLE run_questions (
  run_id         uuid        PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
  platform       text        NOT NULL,
  project        text        NOT NULL,
  ticket         text        NOT NULL,
  kind           text        NOT NULL CHECK (kind IN ('question', 'contradiction', 'not-implementable')),
  question       text        NOT NULL,
  asked_at       timestamptz NOT NULL DEFAULT now(),
  answer         text        NULL,
  answered_by    text        NULL,
  answer_source  text        NULL CHECK (answer_source IN ('ticket-comment', 'pull-request', 'dashboard', 'retry')),
  answered_at    timestamptz NULL,
  resumed_run_id uuid        NULL
);
CREATE INDEX run_questions_ticket ON run_questions (platform, project, ticket, asked_at);

-- Pull-request comments and review acts already read as commands: each is acted on once, on
-- whichever replica sees it first, however often the host delivers it.
CREATE TABLE command_receipts (
  platform    text        NOT NULL,
  repository  text        NOT NULL,
  act_id      text        NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (platform, repository, act_id)
);
CREATE INDEX command_receipts_received_at ON command_receipts (received_at);

-- What the command that started a run asked for beyond its pipeline (rework instructions; the
-- free text after a command), handed to the model as untrusted text.
ALTER TABLE runs ADD COLUMN instructions text NULL;
