-- Exact run totals without counting rows (issue 10, bench:api): `GET /api/runs` answers `total`
-- for every page, and a count(*) over all runs grows with the table. Triggers keep per-project,
-- per-state counts; the list reads them whenever its filter is only state and/or project.
-- Each change adds to one of 16 shard rows chosen at random, so concurrent claims of one project
-- rarely wait on the same row; a total is the sum of a few dozen rows.

-- Writers wait until the triggers exist: a run written between the seed count and the triggers
-- would be counted nowhere, for good (migrating while an older replica still serves).
LOCK TABLE runs IN SHARE ROW EXCLUSIVE MODE;

CREATE TABLE run_counts (
  project  text    NOT NULL,
  state    text    NOT NULL,
  shard    integer NOT NULL,
  n        bigint  NOT NULL,
  PRIMARY KEY (project, state, shard)
);

INSERT INTO run_counts (project, state, shard, n)
  SELECT project, state, 0, count(*) FROM runs GROUP BY project, state;

CREATE FUNCTION run_counts_add() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  s integer := floor(random() * 16)::integer;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO run_counts AS c (project, state, shard, n) VALUES (NEW.project, NEW.state, s, 1)
      ON CONFLICT (project, state, shard) DO UPDATE SET n = c.n + 1;
  ELSE
    -- Both rows in one statement, in state-name order: every transaction locks counter rows in
    -- the same order, so two transitions can never wait on each other in a cycle.
    INSERT INTO run_counts AS c (project, state, shard, n)
      SELECT p, st, s, d FROM (VALUES (OLD.project, OLD.state, -1), (NEW.project, NEW.state, 1)) AS v(p, st, d)
      ORDER BY st
      ON CONFLICT (project, state, shard) DO UPDATE SET n = c.n + EXCLUDED.n;
  END IF;
  RETURN NULL;
END $$;

-- Deletes come in batches (retention, clearing finished runs): one upsert per statement.
CREATE FUNCTION run_counts_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO run_counts AS c (project, state, shard, n)
    SELECT project, state, floor(random() * 16)::integer, -count(*) FROM gone GROUP BY project, state ORDER BY state, project
    ON CONFLICT (project, state, shard) DO UPDATE SET n = c.n + EXCLUDED.n;
  RETURN NULL;
END $$;

CREATE TRIGGER runs_count_insert AFTER INSERT ON runs FOR EACH ROW EXECUTE FUNCTION run_counts_add();
CREATE TRIGGER runs_count_update AFTER UPDATE OF state, project ON runs FOR EACH ROW
  WHEN (OLD.state IS DISTINCT FROM NEW.state OR OLD.project IS DISTINCT FROM NEW.project) EXECUTE FUNCTION run_counts_add();
CREATE TRIGGER runs_count_delete AFTER DELETE ON runs REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION run_counts_remove();
