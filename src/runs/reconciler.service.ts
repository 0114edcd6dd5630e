import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '../config/config.service.js';
import { HeartbeatService } from './heartbeat.service.js';
import { RunQueueService } from './run-queue.service.js';
import { RunRecordsService } from './run-records.service.js';

/** A run younger than this may belong to a claim that has not pushed its request yet. */
const CLAIM_GRACE_SECONDS = 5;

/**
 * The reconciler (housekeeping leader): a queued run (its ticket is Enqueued) with no queue
 * entry and no in-flight owner (no heartbeat in the store, none in the database within the TTL)
 * is pushed again under the same run id. After a store loss every Enqueued ticket is pushed
 * again within `queue.reconcile_interval_seconds` (10 min by default).
 */
@Injectable()
export class ReconcilerService {
  private readonly logger = new Logger('Reconciler');

  constructor(
    private readonly records: RunRecordsService,
    private readonly queue: RunQueueService,
    private readonly heartbeat: HeartbeatService,
    private readonly config: ConfigService,
  ) {}

  /** One pass; returns the run ids pushed again. */
  async reconcile(): Promise<string[]> {
    const ttl = this.config.config.queue.heartbeat_ttl_seconds;
    const pushed: string[] = [];
    for (const { fresh, ...request } of await this.records.queued(CLAIM_GRACE_SECONDS, ttl)) {
      if (fresh || (await this.queue.isQueued(request.runId)) || (await this.heartbeat.isBeating(request.runId))) continue;
      await this.queue.requeue(request);
      this.logger.warn(`run ${request.runId} (${request.project}/${request.ticket ?? '-'}) was enqueued but had no queue entry and no owner: pushed again`);
      pushed.push(request.runId);
    }
    return pushed;
  }
}
