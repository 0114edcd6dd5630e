import { Injectable, Logger } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service.js';
import { LIVE_RUN_STATES } from '../../database/entities/run.entity.js';
import { updatedRows } from '../../database/updated-rows.js';

/** `run_events.kind` of the label projection's events. */
export const LABEL_PROJECTION_EVENT_KIND = 'label-projection';

/** Events kept per run while they cannot be written yet; older ones are dropped first. */
const MAX_DEFERRED_PER_RUN = 20;

/**
 * Makes projection problems visible on the run: rows of kind `label-projection` in `run_events`.
 *
 * A running run's consumer numbers its own events in memory and writes them with
 * `ON CONFLICT DO NOTHING`, so an event inserted beside it would take a number the consumer is
 * about to use and silently drop the consumer's event. Events for a run that is still live
 * (queued, running, parked) are therefore held in memory and written once the run has ended
 * (`flush`, called on every transition and every stale-label round). Best effort: a failure
 * to store is logged, never thrown.
 */
@Injectable()
export class ProjectionEventsRecorder {
  private readonly logger = new Logger('LabelProjection');
  private readonly deferred = new Map<string, string[]>();
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly db: DatabaseService) {}

  /** Queues `text` as an event of run `runId` (returns at once). */
  record(runId: string, text: string): void {
    const list = this.deferred.get(runId) ?? [];
    list.push(text);
    if (list.length > MAX_DEFERRED_PER_RUN) list.splice(0, list.length - MAX_DEFERRED_PER_RUN);
    this.deferred.set(runId, list);
    void this.flush();
  }

  /** Writes what can be written now; resolves when done (for shutdown and tests). */
  flush(): Promise<void> {
    this.chain = this.chain.then(() => this.writeAll()).catch((error: Error) => {
      this.logger.warn(`label-projection events could not be stored: ${error.message}`);
    });
    return this.chain;
  }

  /** Runs with events still waiting (their run is live, or the database is away). */
  get pendingRuns(): string[] {
    return [...this.deferred.keys()];
  }

  private async writeAll(): Promise<void> {
    for (const [runId, texts] of [...this.deferred]) {
      while (texts.length > 0) {
        const written = await this.insert(runId, texts[0] as string);
        if (written === 'live') break;
        texts.shift();
      }
      if (texts.length === 0) this.deferred.delete(runId);
    }
  }

  /** `written`, `gone` (no such run: dropped) or `live` (kept for later). Retries a numbering race. */
  private async insert(runId: string, text: string): Promise<'written' | 'gone' | 'live'> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const rows = updatedRows<{ seq: number }>(await this.db.dataSource.query(
        `INSERT INTO run_events (run_id, seq, kind, sandbox, text)
         SELECT $1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM run_events WHERE run_id = $1), $2, NULL, $3
         WHERE EXISTS (SELECT 1 FROM runs WHERE id = $1 AND NOT (state = ANY($4::text[])))
         ON CONFLICT (run_id, seq) DO NOTHING
         RETURNING seq`,
        [runId, LABEL_PROJECTION_EVENT_KIND, text, LIVE_RUN_STATES],
      ));
      if (rows.length > 0) return 'written';
      const run: { state: string }[] = await this.db.dataSource.query('SELECT state FROM runs WHERE id = $1', [runId]);
      if (!run[0]) return 'gone';
      if ((LIVE_RUN_STATES as readonly string[]).includes(run[0].state)) return 'live';
    }
    throw new Error(`run ${runId}: event numbering kept colliding`);
  }
}
