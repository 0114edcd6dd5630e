-- Polling ingress (issue 17).

-- Where each project's poll left off: the next poll asks its tracker for tickets updated since
-- `cursor` (minus an overlap), and a full sweep (no "since") runs when `last_full_sweep_at` is
-- an hour old. Written only after a whole poll cycle succeeded, by the `poller` lease holder.
CREATE TABLE poll_cursors (
  platform            text        NOT NULL,
  project             text        NOT NULL,
  cursor              timestamptz NOT NULL,
  last_full_sweep_at  timestamptz NULL,
  updated_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (platform, project)
);

-- The trigger log records polled tickets too (those that led to a claim attempt or a
-- rejection); `source` tells them from deliveries, whose rows keep the default.
ALTER TABLE trigger_log ADD COLUMN source text NOT NULL DEFAULT 'webhook' CHECK (source IN ('webhook', 'poll'));
