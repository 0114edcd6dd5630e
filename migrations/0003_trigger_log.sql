-- Every webhook delivery and what became of it, for the dashboard and for operators.
CREATE TABLE trigger_log (
  id            bigserial   PRIMARY KEY,
  received_at   timestamptz NOT NULL,
  platform      text        NULL,
  event         text        NULL,
  delivery_id   text        NULL,
  project       text        NULL,
  ticket        text        NULL,
  outcome       text        NOT NULL,  -- Claimed | AlreadyClaimed | Rejected | Failed | filtered | skipped | unauthorized | duplicate | invalid
  reason        text        NULL,      -- reject, filter or skip reason (e.g. store-unavailable)
  status_code   integer     NOT NULL
);
CREATE INDEX trigger_log_received_at ON trigger_log (received_at DESC);
CREATE INDEX trigger_log_ticket ON trigger_log (project, ticket);
