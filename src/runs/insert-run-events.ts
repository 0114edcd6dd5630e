import type { DataSource } from 'typeorm';
import type { RunEventKind } from '../pipelines/run-event-kind.js';

export interface NewRunEvent {
  at: Date;
  kind: RunEventKind | string;
  sandbox: string | null;
  text: string;
}

/**
 * Stores events of a run in order, numbering them from the run's `event_seq` counter in the same
 * statement. The counter's row lock serialises concurrent writers, so numbers never collide.
 * Returns the numbers given, in order (empty when the run does not exist).
 */
export async function insertRunEvents(db: DataSource, runId: string, events: readonly NewRunEvent[]): Promise<number[]> {
  if (events.length === 0) return [];
  const rows: { seq: number }[] = await db.query(
    `WITH r AS (UPDATE runs SET event_seq = event_seq + $2 WHERE id = $1 RETURNING event_seq - $2 AS base)
     INSERT INTO run_events (run_id, seq, at, kind, sandbox, text)
     SELECT $1, r.base + e.n, e.at, e.kind, e.sandbox, e.text
     FROM r, unnest($3::timestamptz[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS e(at, kind, sandbox, text, n)
     RETURNING seq`,
    [runId, events.length, events.map((e) => e.at), events.map((e) => e.kind), events.map((e) => e.sandbox), events.map((e) => e.text)],
  );
  return rows.map((row) => row.seq).sort((a, b) => a - b);
}
