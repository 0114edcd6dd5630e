import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DelayedError, type Job, WaitingError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { withTimeout } from '../common/with-timeout.js';
import { SERVICE_ENVIRONMENT } from '../config/config.tokens.js';
import { ConfigService } from '../config/config.service.js';
import type { ServiceEnvironment } from '../config/environment.js';
import { DatabaseService, describe } from '../database/database.service.js';
import { StoreConnectionService } from '../store/store-connection.service.js';
import { SubsystemsService } from '../store/subsystems.service.js';
import { BackgroundSubsystem } from '../store/subsystem.js';
import { HeartbeatService } from './heartbeat.service.js';
import { PIPELINE_QUEUE, type PipelineRequest } from './pipeline-request.js';
import { RunExecutorService, RunOutcome } from './run-executor.service.js';
import { RunQueueService } from './run-queue.service.js';

/** How long shutdown waits for running pipelines before closing the worker hard. */
const SHUTDOWN_GRACE_MS = 10_000;
/** How long interrupted runs get to record their end (Failed) before the connection is cut. */
const INTERRUPT_GRACE_MS = 5_000;
/**
 * When a deferred request (its run not admitted yet) is taken again at the latest. Sooner when the
 * capacity leader admits the run: it promotes the delayed request at once.
 */
const ADMISSION_RECHECK_MS = 30_000;

/**
 * The queue consumer: a BullMQ worker with concurrency `queue.max_parallel_runs` that hands each
 * request to the executor. Created only with KVSTORE_URL set, and started once both the store
 * and the database answer; `degraded` while the store is not connected, `up` again on reconnect.
 * A request whose worker died is taken up again by another (BullMQ stall detection); the
 * executor skips it when the run already started, leaving the ticket to the stale-job detector.
 */
@Injectable()
export class RunConsumerService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('RunConsumer');
  private worker: Worker<PipelineRequest, RunOutcome> | null = null;
  private connection: Redis | null = null;
  private closing = false;

  constructor(
    @Inject(SERVICE_ENVIRONMENT) private readonly env: ServiceEnvironment,
    private readonly store: StoreConnectionService,
    private readonly db: DatabaseService,
    private readonly queue: RunQueueService,
    private readonly executor: RunExecutorService,
    private readonly heartbeat: HeartbeatService,
    private readonly config: ConfigService,
    private readonly subsystems: SubsystemsService,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.env.kvstoreUrl) return; // disabled: no worker, no timer, no connection
    this.store.onStateChange(() => this.update());
    this.db.onStatus(() => this.update());
    this.update();
    void this.db.open();
  }

  private update(): void {
    if (this.closing) return;
    const retry = this.config.config.queue.redis_retry_interval_seconds;
    if (!this.store.isConnected) {
      this.subsystems.set(BackgroundSubsystem.QueueConsumer, 'degraded', `store not connected; retrying every ${retry} s`);
    } else if (!this.db.isReady) {
      this.subsystems.set(BackgroundSubsystem.QueueConsumer, 'degraded', `waiting for the database: ${describe(this.db.status)}`);
    } else {
      this.startWorker();
      this.subsystems.set(BackgroundSubsystem.QueueConsumer, 'up', `consuming with concurrency ${this.config.config.queue.max_parallel_runs}`);
    }
  }

  private startWorker(): void {
    if (this.worker || !this.env.kvstoreUrl) return;
    const q = this.config.config.queue;
    const lockDuration = Math.min(30_000, q.heartbeat_ttl_seconds * 1000);
    // A blocking connection of its own: BullMQ needs maxRetriesPerRequest null on it.
    this.connection = new Redis(this.env.kvstoreUrl, { maxRetriesPerRequest: null, retryStrategy: (n) => Math.min(250 * n, 5000) });
    this.connection.on('error', () => undefined);
    this.worker = new Worker<PipelineRequest, RunOutcome>(PIPELINE_QUEUE, (job: Job<PipelineRequest>, token?: string) => this.process(job, token), {
      connection: this.connection,
      prefix: this.queue.prefix,
      concurrency: q.max_parallel_runs,
      lockDuration,
      stalledInterval: lockDuration,
      maxStalledCount: 1,
    });
    this.worker.on('error', (error) => this.logger.debug(`worker: ${error.message}`));
    this.worker.on('failed', (job, error) => this.logger.warn(`request ${job?.id ?? '?'} failed in the consumer: ${error.message}`));
    this.heartbeat.begin();
    this.logger.log(`consumer started (concurrency ${q.max_parallel_runs})`);
  }

  /**
   * Runs the request; one whose run is not admitted yet goes back to the queue, freeing the slot:
   * delayed (the leader promotes it on admission), or straight back to wait when this consumer is
   * closing, for another replica to take.
   */
  private async process(job: Job<PipelineRequest>, token: string | undefined): Promise<RunOutcome> {
    const outcome = await this.executor.execute(job.data, job.attemptsStarted <= 1);
    if (outcome !== RunOutcome.Deferred) return outcome;
    if (this.closing) {
      await job.moveToWait(token);
      throw new WaitingError();
    }
    await job.moveToDelayed(Date.now() + ADMISSION_RECHECK_MS, token);
    throw new DelayedError();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closing = true;
    this.executor.close();
    const worker = this.worker;
    if (!worker) return;
    // A graceful close waits on the store: with the store gone it never settles, and a later
    // close(true) only returns that same pending close. So: forced at once without a store,
    // and never waited on for longer than the grace period. Then the runs still under way are
    // interrupted (their commands killed; they end Failed) and, at last, the connection is cut.
    const closing = worker.close(!this.store.isConnected);
    try {
      await withTimeout(closing, SHUTDOWN_GRACE_MS, 'consumer did not stop in time');
    } catch (error) {
      this.logger.warn(`${(error as Error).message}; interrupting the runs still under way`);
      await this.executor.interrupt();
      await withTimeout(closing, INTERRUPT_GRACE_MS, 'interrupted runs did not end in time')
        .catch((late: Error) => this.logger.warn(`${late.message}; cutting the consumer's connection`));
    }
    this.connection?.disconnect();
  }
}
