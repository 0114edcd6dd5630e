import { Injectable, Logger } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service.js';
import { LIVE_RUN_STATES, type RunState } from '../../database/entities/run.entity.js';
import { updatedRows } from '../../database/updated-rows.js';

/**
 * Finished runs deleted per statement when clearing: each batch is its own short transaction, so
 * a claim (which locks its ticket row, and whose ticket may name a run being deleted) never waits
 * for more than one batch.
 */
export const DELETE_BATCH = 500;

export type DeleteResult = { outcome: 'deleted' } | { outcome: 'not-found' } | { outcome: 'live'; state: RunState };

/**
 * Deletes ended runs. A live run is never deleted (cancel it first); a run ends only once, so
 * "not live" checked in the DELETE itself cannot be overtaken. The database cascades a run's
 * events, sandboxes, steps and comment records; a ticket naming it and a pull request it opened
 * keep their rows, pointing at no run.
 */
@Injectable()
export class RunDeletionService {
  private readonly logger = new Logger('RunControl');

  constructor(private readonly db: DatabaseService) {}

  async delete(runId: string, by: string): Promise<DeleteResult> {
    const deleted = updatedRows(await this.db.dataSource.query(
      'DELETE FROM runs WHERE id = $1 AND NOT (state = ANY($2::text[])) RETURNING id', [runId, LIVE_RUN_STATES]));
    if (deleted.length > 0) {
      this.logger.log(`run ${runId} deleted by ${by}`);
      return { outcome: 'deleted' };
    }
    const rows: { state: RunState }[] = await this.db.dataSource.query('SELECT state FROM runs WHERE id = $1', [runId]);
    return rows[0] ? { outcome: 'live', state: rows[0].state } : { outcome: 'not-found' };
  }

  /** Deletes every ended run, in batches, oldest first; returns how many. Rows locked meanwhile are left for next time. */
  async clearFinished(by: string): Promise<number> {
    let total = 0;
    for (;;) {
      const batch = updatedRows(await this.db.dataSource.query(
        `DELETE FROM runs WHERE id IN (
           SELECT id FROM runs WHERE NOT (state = ANY($1::text[])) ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED
         ) RETURNING id`, [LIVE_RUN_STATES, DELETE_BATCH])).length;
      total += batch;
      if (batch < DELETE_BATCH) break;
    }
    this.logger.log(`${total} finished run(s) deleted by ${by}`);
    return total;
  }
}
