import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { withTimeout } from '../../common/with-timeout.js';
import { DatabaseService } from '../../database/database.service.js';
import { LIVE_RUN_STATES } from '../../database/entities/run.entity.js';
import { StoreConnectionService } from '../../store/store-connection.service.js';
import { TicketLifecycleService } from '../../tickets/ticket-lifecycle.service.js';
import { RunReaderService } from '../resource/run-reader.service.js';
import { PerKeyCoalescer } from './per-key-coalescer.js';
import { RunChangeAudience } from './run-change-audience.js';
import {
  PUBLISH_RUN_CHANGE_LUA, RUN_CHANGES_MAX_LENGTH, RUN_CHANGES_STREAM, RUN_VERSION_TTL_SECONDS, runVersionKey,
} from './run-change-feed.js';

/** A burst of writes to one run (steps, sandboxes, a transition) becomes one read this long after its first. */
const COALESCE_MS = 50;
/** A store that accepted the connection but does not answer must not hold a run's publishing for ever. */
const PUBLISH_TIMEOUT_MS = 2_000;
/** Shutdown publishes what is pending (the final states of interrupted runs), for at most this long. */
const DRAIN_TIMEOUT_MS = 3_000;

/**
 * Tells every replica's hub that a run changed (`run.changed {run}`): after each committed write
 * that changes what the run's Run resource shows, `changed(runId)`. Writes to one run are
 * coalesced; the Run is read once, on this replica, and appended to the store stream
 * `svc:feed:run-changes`, which every hub relays without reading the database itself. A change
 * made while a read is under way is followed by another read, so the last change is always
 * published with the state after it. Best effort: without the store (or the database) nothing is
 * published and nothing waits or fails.
 *
 * Ticket transitions arrive through the lifecycle's listeners; capacity admission is not a
 * change (the Run does not show it). While no hub anywhere has a subscriber or watcher, changes
 * are not published at all (RunChangeAudience).
 */
@Injectable()
export class RunChangeNotifier implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('RunChanges');
  private readonly pending = new PerKeyCoalescer(COALESCE_MS, (runId) => this.publish(runId));

  constructor(
    private readonly store: StoreConnectionService,
    private readonly db: DatabaseService,
    private readonly reader: RunReaderService,
    private readonly lifecycle: TicketLifecycleService,
    private readonly audience: RunChangeAudience,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.store.isConfigured) return;
    this.lifecycle.onTransition((t) => this.changed(t.runId));
  }

  /** The run's Run changed (call after the write committed). Never throws, never waits. */
  changed(runId: string): void {
    if (!this.store.isConfigured || !this.audience.present()) return;
    this.pending.touch(runId);
  }

  private async publish(runId: string): Promise<void> {
    const client = this.store.client;
    // Checked here, not at the change: no database read for a feed nobody can receive.
    if (!client || !this.store.isConnected || !this.db.isReady) return;
    try {
      const read = await this.reader.getVersioned(runId);
      if (!read) return; // deleted meanwhile
      const final = LIVE_RUN_STATES.includes(read.run.state) ? '0' : '1';
      await withTimeout(client.eval(PUBLISH_RUN_CHANGE_LUA, 2, this.store.key(...RUN_CHANGES_STREAM), this.store.key(...runVersionKey(runId)),
        final, read.snapshotXmax, RUN_VERSION_TTL_SECONDS, RUN_CHANGES_MAX_LENGTH, runId, JSON.stringify(read.run)),
      PUBLISH_TIMEOUT_MS, 'the store did not answer');
    } catch (error) {
      this.logger.debug(`run.changed of ${runId} not published: ${(error as Error).message}`);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await withTimeout(this.pending.drain(), DRAIN_TIMEOUT_MS, 'drain').catch(() => undefined);
  }
}
