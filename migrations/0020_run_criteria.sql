-- A run's acceptance criteria (contract "Acceptance criteria and judging"): captured from the
-- ticket when a `code` run reads it (ids c1, c2, … in the ticket's order), the agent's verdict and
-- evidence (`report_criterion`), and a person's judgement (`POST /api/runs/:id/criteria/:criterion/judge`),
-- which changes no run state. They go with their run (deletion, retention) by cascade.

CREATE TABLE run_criteria (
  run_id             uuid        NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  position           integer     NOT NULL CHECK (position >= 1),
  id                 text        NOT NULL CHECK (id ~ '^c[1-9][0-9]{0,3}$'),
  text               text        NOT NULL,
  verdict            text        CHECK (verdict IN ('met', 'unmet', 'not_applicable')),
  evidence           text,
  reported_at        timestamptz,
  judgement_verdict  text        CHECK (judgement_verdict IN ('met', 'unmet', 'not_applicable')),
  judgement_reason   text,
  judged_by          text,
  judged_at          timestamptz,
  PRIMARY KEY (run_id, id),
  CHECK ((judgement_verdict IS NULL) = (judged_at IS NULL))
);

-- The statistics count verdicts and judgements of the runs a filter selects (by run).
CREATE INDEX run_criteria_judged ON run_criteria (run_id) WHERE judged_at IS NOT NULL;
