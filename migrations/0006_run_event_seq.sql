-- Run event numbers are reserved from a counter on the run, so every writer (the consumer's
-- batches, the stale-job detector, label projection) gets distinct numbers.
ALTER TABLE runs ADD COLUMN event_seq integer NOT NULL DEFAULT 0;
UPDATE runs SET event_seq = COALESCE((SELECT MAX(seq) FROM run_events e WHERE e.run_id = runs.id), 0);
