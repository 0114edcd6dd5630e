import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service.js';
import { LIVE_RUN_STATES, RunState } from '../../database/entities/run.entity.js';
import { RunExecutorService } from '../run-executor.service.js';
import { RunControlChannel } from './run-control-channel.service.js';

/**
 * How often the records of the runs this process executes are checked. With the time a kill
 * takes, a run cancelled anywhere stops well within the 10 s the contract allows, even when no
 * message reaches this replica.
 */
export const STOP_CHECK_EVERY_MS = 2000;

/**
 * Stops the runs this process executes whose record has ended elsewhere (cancelled from the
 * dashboard, on this replica or another): at once when the control channel announces the run,
 * and on a timer whatever the store does. The database decides; the executor kills.
 */
@Injectable()
export class RunStopWatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('RunControl');
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly executor: RunExecutorService,
    private readonly channel: RunControlChannel,
    private readonly db: DatabaseService,
  ) {}

  onApplicationBootstrap(): void {
    this.unsubscribe = this.channel.onAnnounce((runId) => void this.check([runId]));
    this.timer = setInterval(() => void this.check(this.executor.runsUnderWay()), STOP_CHECK_EVERY_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Stops those of `runIds` executed here whose record is no longer live. */
  async check(runIds: readonly string[]): Promise<void> {
    const under = new Set(this.executor.runsUnderWay());
    const mine = runIds.filter((id) => under.has(id));
    if (mine.length === 0 || !this.db.isReady) return;
    let ended: { id: string; state: RunState | null; error: string | null }[];
    try {
      // A run whose record is gone (cancelled, then deleted before this look) is over too.
      ended = await this.db.dataSource.query(
        `SELECT m.id, r.state, r.error FROM unnest($1::uuid[]) AS m(id) LEFT JOIN runs r ON r.id = m.id
         WHERE r.id IS NULL OR NOT (r.state = ANY($2::text[]))`, [mine, LIVE_RUN_STATES]);
    } catch (error) {
      // The heartbeat's self-fencing covers a database that stays away.
      this.logger.debug(`run records not checked: ${(error as Error).message}`);
      return;
    }
    for (const run of ended) {
      if (run.state === null) await this.executor.stopRun(run.id, 'the run was deleted', RunState.Cancelled);
      else await this.executor.stopRun(run.id, run.error ?? `the run ended elsewhere as ${run.state}`, run.state);
    }
  }
}
