import { type INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { ServiceEnvironment } from '../../../src/config/environment.js';
import { CoreModule } from '../../../src/core.module.js';
import { DatabaseService } from '../../../src/database/database.service.js';
import { Platform } from '../../../src/platforms/platform.js';
import { RunQueueModule } from '../../../src/runs/run-queue.module.js';
import { StoreConnectionService } from '../../../src/store/store-connection.service.js';
import { ClaimService } from '../../../src/tickets/claim.service.js';
import { LifecycleTrigger } from '../../../src/tickets/lifecycle.js';
import { LabelProjectionModule } from '../../../src/tickets/label-projection/label-projection.module.js';
import {
  DEFAULT_LABEL_PROJECTION_OPTIONS,
  type LabelProjectionOptions,
} from '../../../src/tickets/label-projection/label-projection.options.js';
import { LabelProjectionService } from '../../../src/tickets/label-projection/label-projection.service.js';
import type { TicketKey } from '../../../src/tickets/ticket-key.js';
import { TicketLifecycleService } from '../../../src/tickets/ticket-lifecycle.service.js';
import { TicketsModule } from '../../../src/tickets/tickets.module.js';
import { eventually } from './ticket-test-setup.js';

/** The spec's timings shortened so that retries, back-off and the stale round fit in a test. */
export const FAST_OPTIONS: Partial<LabelProjectionOptions> = {
  maxAttempts: 3,
  retryBaseMs: 100,
  maxRetryDelayMs: 1_000,
  staleRetryMs: 1_000,
  preconditionRetries: 5,
  labelLockMs: 10_000,
  commentMaxChars: DEFAULT_LABEL_PROJECTION_OPTIONS.commentMaxChars,
  rateLimits: Object.fromEntries(Object.values(Platform).map((p) => [p, { perMinute: 6_000, burst: 50 }])) as LabelProjectionOptions['rateLimits'],
  http: { maxAttempts: 2, baseBackoffMs: 20, maxRetryWaitMs: 200, timeoutMs: 2_000 },
};

/** The real lifecycle, claim and projection on the real store and database, no run engine. */
export class ProjectionApp {
  private constructor(readonly app: INestApplicationContext) {}

  static async boot(env: ServiceEnvironment, options: Partial<LabelProjectionOptions> = {}): Promise<ProjectionApp> {
    @Module({ imports: [CoreModule.register(env), RunQueueModule, TicketsModule, LabelProjectionModule.withOptions({ ...FAST_OPTIONS, ...options })] })
    class ProjectionTestModule {}
    const app = await NestFactory.createApplicationContext(ProjectionTestModule, { logger: ['error'] });
    app.enableShutdownHooks();
    const db = app.get(DatabaseService);
    const store = app.get(StoreConnectionService);
    await eventually(async () => ((await db.open()).state === 'ready' && (await store.check()) ? true : undefined), 20_000, 'database and store');
    return new ProjectionApp(app);
  }

  get lifecycle(): TicketLifecycleService {
    return this.app.get(TicketLifecycleService);
  }

  get projection(): LabelProjectionService {
    return this.app.get(LabelProjectionService);
  }

  /** Pending → Enqueued through the real claim (30 s claim lock, queue push); the run id. */
  async claim(key: TicketKey, pipeline = 'code'): Promise<string> {
    const claimed = await this.app.get(ClaimService).claim(key, pipeline);
    if (claimed.outcome !== 'Claimed') throw new Error(`claim of ${key.ticket}: ${claimed.outcome}`);
    return claimed.runId;
  }

  /** Pending → Enqueued (claim) → InProgress (dequeue); the run id. */
  async start(key: TicketKey, pipeline = 'code'): Promise<string> {
    const runId = await this.claim(key, pipeline);
    if (!(await this.lifecycle.transition(runId, LifecycleTrigger.Dequeue))) throw new Error('dequeue refused');
    return runId;
  }

  /** InProgress → Done, or → Failed with `error`. */
  async finish(runId: string, error: string | null = null): Promise<void> {
    const moved = await this.lifecycle.transition(runId, error === null ? LifecycleTrigger.Succeed : LifecycleTrigger.Fail, error);
    if (!moved) throw new Error('finish refused');
  }

  async close(): Promise<void> {
    await this.app.close();
  }
}
