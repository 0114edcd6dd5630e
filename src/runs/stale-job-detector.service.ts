import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '../config/config.service.js';
import { RunState } from '../database/entities/run.entity.js';
import { RunEventKind } from '../pipelines/run-event-kind.js';
import { LifecycleTrigger } from '../tickets/lifecycle.js';
import { TicketLifecycleService } from '../tickets/ticket-lifecycle.service.js';
import { HeartbeatService } from './heartbeat.service.js';
import { RunRecordsService } from './run-records.service.js';

/**
 * Stale-job detection (housekeeping leader): a running run with no heartbeat for
 * `queue.heartbeat_ttl_seconds` (neither the store key nor its database copy) whose consumer is
 * gone (its liveness key expired) is presumed crashed. Its ticket goes InProgress → Pending
 * (and the run to failed, which frees its capacity); a ticket-less run is failed directly.
 */
@Injectable()
export class StaleJobDetectorService {
  private readonly logger = new Logger('StaleJobDetector');

  constructor(
    private readonly records: RunRecordsService,
    private readonly heartbeat: HeartbeatService,
    private readonly lifecycle: TicketLifecycleService,
    private readonly config: ConfigService,
  ) {}

  /** One scan; returns the ids of the runs reverted. */
  async scan(): Promise<string[]> {
    const ttl = this.config.config.queue.heartbeat_ttl_seconds;
    const reverted: string[] = [];
    for (const run of await this.records.silentRunning(ttl)) {
      if (await this.heartbeat.isBeating(run.id)) continue;
      if (run.owner && (await this.heartbeat.isConsumerAlive(run.owner))) continue;
      const error = `no heartbeat for ${ttl} s and its consumer (${run.owner ?? 'unknown'}) is gone: presumed crashed`;
      if (run.ticket !== null) {
        const moved = await this.lifecycle.transition(run.id, LifecycleTrigger.StaleRevert, error);
        if (!moved) await this.records.finish(run.id, RunState.Failed, error);
      } else {
        await this.records.finish(run.id, RunState.Failed, error);
      }
      this.logger.warn(`run ${run.id}${run.ticket ? ` (ticket ${run.ticket})` : ''}: ${error}; ${run.ticket ? 'ticket reverted to pending' : 'run failed'}`);
      reverted.push(run.id);
    }
    return reverted;
  }
}
