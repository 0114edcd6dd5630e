import { Injectable, Logger } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service.js';
import { insertRunEvents } from '../../runs/insert-run-events.js';

/** `run_events.kind` of the label projection's events. */
export const LABEL_PROJECTION_EVENT_KIND = 'label-projection';

/** Events kept per run while the database is away; older ones are dropped first. */
const MAX_DEFERRED_PER_RUN = 20;

/**
 * Makes projection problems visible on the run: rows of kind `label-projection` in `run_events`,
 * numbered from the run's counter like every other event. Best effort: what cannot be stored
 * while the database is away waits in memory; a failure is logged, never thrown.
 */
@Injectable()
export class ProjectionEventsRecorder {
  private readonly logger = new Logger('LabelProjection');
  private readonly deferred = new Map<string, { at: Date; text: string }[]>();
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly db: DatabaseService) {}

  /** Queues `text` as an event of run `runId` (returns at once). */
  record(runId: string, text: string): void {
    const list = this.deferred.get(runId) ?? [];
    list.push({ at: new Date(), text });
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

  /** Runs with events still waiting (the database is away). */
  get pendingRuns(): string[] {
    return [...this.deferred.keys()];
  }

  private async writeAll(): Promise<void> {
    if (!this.db.isReady) return;
    for (const [runId, events] of [...this.deferred]) {
      // A run that no longer exists stores nothing; its events are dropped with it.
      await insertRunEvents(this.db.dataSource, runId, events.map((e) => ({ at: e.at, kind: LABEL_PROJECTION_EVENT_KIND, sandbox: null, text: e.text })));
      this.deferred.delete(runId);
    }
  }
}
