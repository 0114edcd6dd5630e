import { Injectable, Logger } from '@nestjs/common';
import { clipText } from '../../common/clip-text.js';
import { isDatabaseFault } from '../../database/database-fault.js';
import { DatabaseService } from '../../database/database.service.js';
import { insertRunEvents } from '../../runs/insert-run-events.js';

/** `run_events.kind` of the label projection's events. */
export const LABEL_PROJECTION_EVENT_KIND = 'label-projection';

/** Events kept per run while the database is away; older ones are dropped first. */
const MAX_DEFERRED_PER_RUN = 20;
/** Runs with events kept while the database is away; the oldest run's events go first. */
const MAX_DEFERRED_RUNS = 256;
/** Longest event text kept (characters); a longer one is clipped. */
const MAX_TEXT_CHARS = 2_000;
/** Consecutive failures of one run's write (database reachable) after which its events are dropped. */
const MAX_RUN_FAILURES = 3;

interface DeferredEvent {
  at: Date;
  text: string;
}

/**
 * Makes projection problems visible on the run: rows of kind `label-projection` in `run_events`,
 * numbered from the run's counter like every other event. Best effort: what cannot be stored
 * while the database is away waits in memory; a failure is logged, never thrown.
 *
 * Memory stays bounded: at most `MAX_DEFERRED_RUNS` runs × `MAX_DEFERRED_PER_RUN` events ×
 * `MAX_TEXT_CHARS` characters. Texts are made storable first (NUL bytes, which PostgreSQL refuses
 * in `text`, are replaced; long texts are clipped). Runs are written one by one: a run whose
 * write fails for a reason of its own (a data error, not the database being away) does not hold
 * back the others, and after `MAX_RUN_FAILURES` consecutive failures its events are dropped with
 * one warning.
 */
@Injectable()
export class ProjectionEventsRecorder {
  private readonly logger = new Logger('LabelProjection');
  private readonly deferred = new Map<string, DeferredEvent[]>();
  /** Consecutive run-specific write failures, per run with events still deferred. */
  private readonly failures = new Map<string, number>();
  /** The run whose batch is being written (taken out of `deferred` meanwhile). */
  private writing: string | null = null;
  /** Events dropped because too many runs were waiting, not yet reported. */
  private evicted = { runs: 0, events: 0 };
  private chain: Promise<void> = Promise.resolve();
  /** The queued pass that has not started yet, if any. */
  private nextPass: Promise<void> | null = null;

  constructor(private readonly db: DatabaseService) {}

  /** Queues `text` as an event of run `runId` (returns at once). */
  record(runId: string, text: string): void {
    let list = this.deferred.get(runId);
    if (!list) {
      list = [];
      this.deferred.set(runId, list);
      this.evictOverflow();
    }
    list.push({ at: new Date(), text: storableText(text) });
    if (list.length > MAX_DEFERRED_PER_RUN) list.splice(0, list.length - MAX_DEFERRED_PER_RUN);
    void this.flush();
  }

  /**
   * Writes what can be written now; resolves when done (for shutdown and tests). Calls made
   * before the next pass starts share it, so a burst of `record`s is one attempt, not many.
   */
  flush(): Promise<void> {
    if (this.nextPass) return this.nextPass;
    const pass = this.chain.then(() => {
      this.nextPass = null; // from here on, what is recorded needs another pass
      return this.writeAll();
    }).catch((error: Error) => {
      this.logger.warn(`label-projection events could not be stored: ${error.message}`);
    });
    this.nextPass = pass;
    this.chain = pass;
    return pass;
  }

  /** Runs with events still waiting (the database is away, or their write keeps failing). */
  get pendingRuns(): string[] {
    const runs = [...this.deferred.keys()];
    return this.writing !== null && !this.deferred.has(this.writing) ? [this.writing, ...runs] : runs;
  }

  private async writeAll(): Promise<void> {
    if (!this.db.isReady) return;
    for (const runId of [...this.deferred.keys()]) {
      const batch = this.deferred.get(runId);
      if (!batch) continue; // evicted meanwhile
      // Taken out while written: what `record` adds meanwhile starts a fresh list, kept on failure.
      this.deferred.delete(runId);
      this.writing = runId;
      try {
        // A run that no longer exists stores nothing; its events are dropped with it.
        await insertRunEvents(this.db.dataSource, runId, batch.map((e) => ({ at: e.at, kind: LABEL_PROJECTION_EVENT_KIND, sandbox: null, text: e.text })));
        this.failures.delete(runId);
      } catch (error) {
        this.putBack(runId, batch);
        // The database is away (or busy): nothing is wrong with this run; stop here and keep
        // everything for the next flush. The run goes to the back, so the next pass starts elsewhere.
        // No answer from PostgreSQL at all (refused, reset, pool timeout) counts as the database away too.
        if (isDatabaseFault(error) !== false) throw error;
        this.runFailed(runId, error as Error);
      } finally {
        this.writing = null;
      }
    }
    this.reportEvicted();
  }

  /** Returns a batch that was not stored, ahead of what was recorded meanwhile, at the back of the queue. */
  private putBack(runId: string, batch: DeferredEvent[]): void {
    const merged = [...batch, ...(this.deferred.get(runId) ?? [])];
    if (merged.length > MAX_DEFERRED_PER_RUN) merged.splice(0, merged.length - MAX_DEFERRED_PER_RUN);
    this.deferred.delete(runId);
    this.deferred.set(runId, merged);
    this.evictOverflow();
  }

  private runFailed(runId: string, error: Error): void {
    const count = (this.failures.get(runId) ?? 0) + 1;
    const reason = clipText(error.message.replace(/\s+/g, ' '), 300);
    if (count < MAX_RUN_FAILURES) {
      this.failures.set(runId, count);
      this.logger.debug(`label-projection events of run ${runId} not stored (attempt ${count} of ${MAX_RUN_FAILURES}): ${reason}`);
      return;
    }
    const dropped = this.deferred.get(runId)?.length ?? 0;
    this.deferred.delete(runId);
    this.failures.delete(runId);
    this.logger.warn(`dropped ${dropped} label-projection event(s) of run ${runId}: not stored after ${count} attempts: ${reason}`);
  }

  /** Keeps at most `MAX_DEFERRED_RUNS` runs waiting, dropping the oldest queued first. */
  private evictOverflow(): void {
    while (this.deferred.size > MAX_DEFERRED_RUNS) {
      const oldest = this.deferred.keys().next().value as string;
      if (this.evicted.runs === 0) {
        this.logger.warn(`more than ${MAX_DEFERRED_RUNS} runs have label-projection events waiting; dropping the oldest runs' events (a count follows once events are stored again)`);
      }
      this.evicted.runs++;
      this.evicted.events += this.deferred.get(oldest)?.length ?? 0;
      this.deferred.delete(oldest);
      this.failures.delete(oldest);
    }
  }

  private reportEvicted(): void {
    if (this.evicted.runs === 0) return;
    this.logger.warn(`dropped ${this.evicted.events} label-projection event(s) of ${this.evicted.runs} run(s) while too many runs were waiting`);
    this.evicted = { runs: 0, events: 0 };
  }
}

/** PostgreSQL refuses NUL in `text`; a tracker's response body can carry one. Long texts are clipped. */
function storableText(text: string): string {
  return clipText(text.replace(/\0/g, '\uFFFD'), MAX_TEXT_CHARS);
}
