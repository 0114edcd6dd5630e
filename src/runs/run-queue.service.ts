import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Queue } from 'bullmq';
import { SERVICE_ENVIRONMENT } from '../config/config.tokens.js';
import { ConfigService } from '../config/config.service.js';
import type { ServiceEnvironment } from '../config/environment.js';
import { StoreUnavailableError } from '../store/lock.service.js';
import { createStoreClient } from '../store/store-connection.service.js';
import { PIPELINE_JOB, PIPELINE_QUEUE, type PipelineRequest } from './pipeline-request.js';

/** Jobs kept after they end, for inspection; older ones are trimmed by BullMQ. */
const KEEP_ENDED_JOBS = 1000;

/**
 * The FIFO job queue of pipeline requests (BullMQ on the store). Exists only when KVSTORE_URL is
 * set. The job id is the run id, so pushing the same run again (the reconciler) never
 * duplicates a request that is still queued.
 */
@Injectable()
export class RunQueueService implements OnApplicationShutdown {
  readonly queue: Queue<PipelineRequest> | null;
  /** BullMQ's key prefix, e.g. `svc:bull`. */
  readonly prefix: string;

  constructor(@Inject(SERVICE_ENVIRONMENT) env: ServiceEnvironment, config: ConfigService) {
    this.prefix = `${config.config.queue.key_prefix}bull`;
    this.queue = env.kvstoreUrl
      ? new Queue<PipelineRequest>(PIPELINE_QUEUE, { connection: createStoreClient(env.kvstoreUrl), prefix: this.prefix })
      : null;
    this.queue?.on('error', () => undefined); // connection state is reported by the store module
  }

  async enqueue(request: PipelineRequest): Promise<void> {
    if (!this.queue) throw new StoreUnavailableError('KVSTORE_URL is not set');
    await this.queue.add(PIPELINE_JOB, request, {
      jobId: request.runId,
      removeOnComplete: KEEP_ENDED_JOBS,
      removeOnFail: KEEP_ENDED_JOBS,
    });
  }

  /**
   * Pushes a request again (the reconciler): an ended job under the same id (BullMQ keeps a
   * number of them) is removed first, since a job id that still exists is not added twice.
   */
  async requeue(request: PipelineRequest): Promise<void> {
    const job = await this.queue?.getJob(request.runId);
    if (job) {
      const state = await job.getState();
      if (state !== 'completed' && state !== 'failed' && state !== 'unknown') return;
      await job.remove();
    }
    await this.enqueue(request);
  }

  /** Makes a delayed request (a run that waited for admission) available to consumers now. */
  async promoteIfDelayed(runId: string): Promise<void> {
    const job = await this.queue?.getJob(runId);
    if (job && (await job.isDelayed())) await job.promote().catch(() => undefined); // taken meanwhile
  }

  /**
   * Takes the run's request off the queue (a cancelled run). `held` when a consumer has it now
   * (BullMQ does not remove a locked job): that consumer then finds the run no longer queued.
   */
  async remove(runId: string): Promise<'removed' | 'held'> {
    if (!this.queue) return 'removed';
    return (await this.queue.remove(runId)) === 1 ? 'removed' : 'held';
  }

  /** True when a request under the run's id is on the queue, in any state. */
  async hasJob(runId: string): Promise<boolean> {
    return (await this.queue?.getJob(runId)) !== undefined;
  }

  /** True while the run's request waits or is being worked on. */
  async isQueued(runId: string): Promise<boolean> {
    if (!this.queue) return false;
    const job = await this.queue.getJob(runId);
    if (!job) return false;
    const state = await job.getState();
    return state === 'waiting' || state === 'active' || state === 'delayed' || state === 'prioritized' || state === 'waiting-children';
  }

  async onApplicationShutdown(): Promise<void> {
    await this.queue?.close();
  }
}
