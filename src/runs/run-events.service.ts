import { Injectable, Logger } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';
import type { RunEventKind } from '../pipelines/run-event-kind.js';
import { RunEventWriter } from './run-event-writer.js';
import { RunFeedPublisher } from './run-feed.publisher.js';

/** Run events: stored in `run_events` (the record) and published on the live run feed. */
@Injectable()
export class RunEventsService {
  private readonly logger = new Logger('RunEvents');

  constructor(
    private readonly db: DatabaseService,
    private readonly feed: RunFeedPublisher,
  ) {}

  /** A writer continuing the run's numbering (a run taken over after a crash keeps its earlier events). */
  async open(runId: string): Promise<RunEventWriter> {
    const rows: { last: number | null }[] = await this.db.dataSource.query('SELECT MAX(seq) AS last FROM run_events WHERE run_id = $1', [runId]);
    return new RunEventWriter(runId, rows[0]?.last ?? 0, () => this.db.dataSource, this.feed,
      (error) => this.logger.warn(`events of run ${runId} could not be stored: ${error.message}`));
  }

  /** One event written outside a consumer (e.g. by the stale-job detector, when the consumer is gone). */
  async append(runId: string, kind: RunEventKind, text: string): Promise<void> {
    const rows: { seq: number; at: Date }[] = await this.db.dataSource.query(
      `INSERT INTO run_events (run_id, seq, kind, sandbox, text)
       SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, NULL, $3 FROM run_events WHERE run_id = $1 RETURNING seq, at`,
      [runId, kind, text]);
    const row = rows[0];
    if (row) this.feed.publish({ run: runId, seq: row.seq, at: new Date(row.at).toISOString(), kind, sandbox: null, text });
  }
}
