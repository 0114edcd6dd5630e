import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigService } from '../config/config.service.js';
import { DatabaseService } from '../database/database.service.js';
import { RunState } from '../database/entities/run.entity.js';

export interface RetentionLimits {
  /** Runs deleted per statement: each statement is short, so the row locks it takes (its runs,
   * and the tickets whose `run_id` it clears) are held only briefly and a claim never waits long. */
  batchSize: number;
  /** Runs deleted per pass at most; the next pass continues. */
  maxRunsPerPass: number;
  /** Pause between statements, leaving the pool (one connection on the embedded database) to others. */
  pauseMs: number;
}

export const RETENTION_LIMITS: RetentionLimits = { batchSize: 250, maxRunsPerPass: 50_000, pauseMs: 100 };

export interface RetentionPass {
  removed: number;
  /** Runs removed by each statement, in order. */
  batches: number[];
  /** False when the pass stopped at its cap, on shutdown or on losing the lease. */
  complete: boolean;
}

const FINISHED_STATES: readonly RunState[] = [RunState.Succeeded, RunState.Failed, RunState.Cancelled];

/**
 * One batch: the oldest finished runs past the window (index `runs_finished_at`), skipping rows
 * another transaction holds (a run being deleted by hand waits for the next pass). Their events,
 * sandboxes, steps, artifacts and ticket comments go by cascade; tickets and pull requests keep their rows
 * with `run_id` cleared.
 */
const DELETE_BATCH_SQL = `
  WITH gone AS (
    DELETE FROM runs WHERE id IN (
      SELECT id FROM runs
      WHERE finished_at < now() - make_interval(days => $1) AND state = ANY($2::text[])
      ORDER BY finished_at
      LIMIT $3
      FOR UPDATE SKIP LOCKED)
    RETURNING 1)
  SELECT count(*)::int AS n FROM gone`;

/**
 * Retention (housekeeping leader): finished runs (succeeded, failed, cancelled) whose `finished_at`
 * is older than `runs.retention_days` are deleted with their events, in small batches with a
 * pause between them and a cap per pass, and so are command receipts that old. Live runs
 * (parked ones included) are never touched, however old.
 */
@Injectable()
export class RunRetentionService implements OnApplicationShutdown {
  private readonly logger = new Logger('RunRetention');
  private running: Promise<RetentionPass> | null = null;
  private stopped = false;

  constructor(
    private readonly db: DatabaseService,
    private readonly config: ConfigService,
  ) {}

  /** One pass; a call during a pass shares it. `proceed` is asked between batches (e.g. "still the leader"). */
  pass(proceed: () => boolean = () => true, limits: RetentionLimits = RETENTION_LIMITS): Promise<RetentionPass> {
    this.running ??= this.run(proceed, limits).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async run(proceed: () => boolean, limits: RetentionLimits): Promise<RetentionPass> {
    const days = this.config.config.runs.retention_days;
    const batches: number[] = [];
    let removed = 0;
    let complete = false;
    for (;;) {
      const size = Math.min(limits.batchSize, limits.maxRunsPerPass - removed);
      const rows: { n: number }[] = await this.db.dataSource.query(DELETE_BATCH_SQL, [days, FINISHED_STATES, size]);
      const n = rows[0]?.n ?? 0;
      batches.push(n);
      removed += n;
      if (n < size) {
        complete = true;
        break;
      }
      if (removed >= limits.maxRunsPerPass) break;
      await sleep(limits.pauseMs);
      if (this.stopped || !proceed()) break;
    }
    // Pull-request acts already read: a host never redelivers one that old.
    await this.db.dataSource.query('DELETE FROM command_receipts WHERE received_at < now() - make_interval(days => $1)', [days]);
    if (removed > 0) {
      this.logger.log(`removed ${removed} finished run(s) older than ${days} day(s), with their events, in ${batches.length} batch(es)`
        + (complete ? '' : '; more may remain for the next pass'));
    }
    return { removed, batches, complete };
  }

  onApplicationShutdown(): void {
    this.stopped = true;
  }
}
