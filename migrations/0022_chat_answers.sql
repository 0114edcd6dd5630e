-- Chat (issue 30): a parked run's question may be answered in the chat thread that follows it.
ALTER TABLE run_questions DROP CONSTRAINT IF EXISTS run_questions_answer_source_check;
ALTER TABLE run_questions ADD CONSTRAINT run_questions_answer_source_check
  CHECK (answer_source IN ('ticket-comment', 'pull-request', 'dashboard', 'retry', 'chat'));
