import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';

export interface RunEventView {
  seq: number;
  at: string;
  kind: string;
  sandbox: string | null;
  text: string;
}

/** A page of a run's events: `nextAfter` is the `after` of the next page, null on the last one. */
export interface RunEventPage {
  items: RunEventView[];
  nextAfter: number | null;
}

/**
 * The SQL `GET /api/runs/:id/events` runs (the bench runs the same). One more row than asked says whether more follow.
 * `at` comes formatted as the API gives it (ISO 8601 UTC, milliseconds truncated: what `Date#toISOString` gives for the
 * driver's Date): formatting 500 times in the database costs less than parsing 500 timestamps into Dates and
 * formatting them again in the server.
 */
export const RUN_EVENTS_SQL = `SELECT seq, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at, kind, sandbox, text
  FROM run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`;

/** Reads a run's stored events in `seq` order, paged by the last `seq` seen. */
@Injectable()
export class RunEventsReader {
  constructor(private readonly db: DatabaseService) {}

  /** Null when the run does not exist. */
  async page(runId: string, after: number, limit: number): Promise<RunEventPage | null> {
    const rows: { seq: number; at: string; kind: string; sandbox: string | null; text: string }[] =
      await this.db.dataSource.query(RUN_EVENTS_SQL, [runId, after, limit + 1]);
    if (rows.length === 0) {
      const exists: unknown[] = await this.db.dataSource.query('SELECT 1 FROM runs WHERE id = $1', [runId]);
      if (exists.length === 0) return null;
    }
    // The rows already have the API's shape (`at` formatted by the database).
    const items = rows.length > limit ? rows.slice(0, limit) : rows;
    return { items, nextAfter: rows.length > limit ? (items.at(-1)?.seq ?? null) : null };
  }
}
