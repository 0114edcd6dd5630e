-- Run retention (issue 10, item 6). Deleting a run clears `tickets.run_id` (ON DELETE SET NULL),
-- which looks tickets up by run id: without an index every deleted run scans the whole tickets
-- table, and a retention batch holds its locks that much longer. Ticket transitions find their
-- ticket by run id as well.
CREATE INDEX tickets_run_id ON tickets (run_id);
