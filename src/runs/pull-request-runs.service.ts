import { traceContext } from '../tracing/spans.js';
import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';
import type { Platform } from '../platforms/platform.js';
import { StoreUnavailableError } from '../store/lock.service.js';
import { StoreConnectionService } from '../store/store-connection.service.js';
import { RunChangeNotifier } from './changes/run-change-notifier.js';
import type { PullRequestTarget } from './pipeline-request.js';
import { RunQueueService } from './run-queue.service.js';

const PG_UNIQUE_VIOLATION = '23505';

export type PullRequestRunOutcome =
  | { outcome: 'Claimed'; runId: string }
  /** A run of this pipeline is already queued, running or parked for the pull request. */
  | { outcome: 'AlreadyClaimed' }
  | { outcome: 'Failed'; error: string };

export interface PullRequestRunRequest {
  platform: Platform;
  project: string;
  target: PullRequestTarget;
  pipeline: string;
  /** Free text that came with the command (handed to the model as untrusted text). */
  instructions?: string | null;
}

/**
 * Starts runs that target a pull request instead of a ticket (the label trigger, ticket-less
 * pull-request commands): no ticket lifecycle, one live run per pull request and pipeline (the
 * database's unique index decides, so redeliveries and replicas race safely), then the FIFO
 * queue like any claim. A request that cannot be queued is undone.
 */
@Injectable()
export class PullRequestRunsService {
  private readonly logger = new Logger('PullRequestRuns');

  constructor(
    private readonly db: DatabaseService,
    private readonly store: StoreConnectionService,
    private readonly queue: RunQueueService,
    private readonly changes: RunChangeNotifier,
  ) {}

  /** Throws StoreUnavailableError when the store is not up (the caller answers 503). */
  async start(request: PullRequestRunRequest): Promise<PullRequestRunOutcome> {
    if (!this.store.isConnected) throw new StoreUnavailableError(this.store.isConfigured ? 'not connected' : 'KVSTORE_URL is not set');
    const runId = randomUUID();
    const { platform, project, target, pipeline } = request;
    try {
      await this.db.dataSource.query(
        `INSERT INTO runs (id, platform, project, ticket, pipeline, state, target, instructions) VALUES ($1, $2, $3, NULL, $4, 'queued', $5, $6)`,
        [runId, platform, project, pipeline, JSON.stringify({ repo: target.repo, number: target.number }), request.instructions ?? null]);
    } catch (error) {
      if ((error as { code?: string }).code === PG_UNIQUE_VIOLATION) return { outcome: 'AlreadyClaimed' };
      return { outcome: 'Failed', error: (error as Error).message };
    }
    this.changes.changed(runId);
    try {
      await this.queue.enqueue({ runId, platform, project, ticket: null, pipeline, target, ...traceContext() });
    } catch (pushError) {
      if (await this.queue.hasJob(runId).catch(() => false)) return { outcome: 'Claimed', runId };
      // Only while still queued: a push that reported an error may have reached a consumer.
      await this.db.dataSource.query(`DELETE FROM runs WHERE id = $1 AND state = 'queued'`, [runId]).catch(() => undefined);
      this.logger.warn(`run ${runId} for ${describeTarget(request)} undone: ${(pushError as Error).message}`);
      if (!this.store.isConnected) throw new StoreUnavailableError((pushError as Error).message);
      return { outcome: 'Failed', error: (pushError as Error).message };
    }
    this.logger.log(`run ${runId} (${pipeline}) queued for ${describeTarget(request)}`);
    return { outcome: 'Claimed', runId };
  }
}

export function describeTarget(request: Pick<PullRequestRunRequest, 'platform' | 'project' | 'target'>): string {
  return `${request.platform}/${request.project} pull request ${request.target.repo}#${request.target.number}`;
}
