-- Comments the service posts once per run (issue 5: the failure comment). One row per run and
-- kind: the row is claimed ('posting') before the tracker is asked and marked 'posted' with the
-- tracker's comment id after, so a repeated transition, a retried post or a second replica never
-- posts the same comment twice. A claim left behind by a crashed poster expires (claimed_at)
-- and the next attempt first looks for the comment on the ticket by its hidden run marker.

CREATE TABLE ticket_comments (
  run_id      uuid        NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  kind        text        NOT NULL,
  platform    text        NOT NULL,
  project     text        NOT NULL,
  ticket      text        NOT NULL,
  state       text        NOT NULL CHECK (state IN ('posting', 'posted')),
  comment_id  text        NULL,
  claimed_by  text        NULL,
  claimed_at  timestamptz NOT NULL DEFAULT now(),
  posted_at   timestamptz NULL,
  PRIMARY KEY (run_id, kind)
);
CREATE INDEX ticket_comments_ticket ON ticket_comments (platform, project, ticket);
