-- Runs that target a pull request instead of a ticket (issue 14): a `security-scan` started by
-- the pull-request label trigger, later pull-request commands without a ticket. Such a run has no
-- ticket row; `target` names the repository and pull request, and the reconciler reads it back
-- when it pushes a queued request again.
ALTER TABLE runs ADD COLUMN target jsonb NULL;

-- One live run per pull request and pipeline, by construction (as runs_one_live_per_ticket for
-- tickets): a label delivered twice, or by two replicas at once, starts one scan.
CREATE UNIQUE INDEX runs_one_live_per_pull_request
  ON runs (platform, project, (target ->> 'repo'), (target ->> 'number'), pipeline)
  WHERE target IS NOT NULL AND state IN ('queued', 'running', 'parked');
