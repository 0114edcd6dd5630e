import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import pg from 'pg';
import type { AppModuleOptions } from '../../../src/app.module.js';
import { Redis } from 'ioredis';
import { DatabaseService } from '../../../src/database/database.service.js';
import type { Platform } from '../../../src/platforms/platform.js';
import type { PullRequestTarget } from '../../../src/runs/pipeline-request.js';
import { PullRequestRunsService } from '../../../src/runs/pull-request-runs.service.js';
import { StoreConnectionService } from '../../../src/store/store-connection.service.js';
import { ClaimService } from '../../../src/tickets/claim.service.js';
import { eventually } from '../../support/eventually.js';
import { tempConfig } from '../../support/temp-config.js';
import { bootApp } from '../../support/test-app.js';
import { createTestDatabase } from '../../support/test-database.js';
import { testEnvironment } from '../../support/test-env.js';
import { REDIS_URL, deleteKeys, uniqueKeyPrefix } from '../../support/test-store.js';

export interface RunRow {
  state: string;
  error: string | null;
}

export interface RunEventRow {
  kind: string;
  sandbox: string | null;
  text: string;
}

/**
 * The whole server (AppModule, in-process sandboxes) on a fresh migrated database and a key
 * prefix of its own, booted from a temp `service.yml`: tickets are claimed through the real
 * ClaimService and the run engine takes them from the real queue, exactly as a webhook's claim.
 */
export class PublishServer {
  private constructor(
    readonly app: NestFastifyApplication,
    readonly db: pg.Pool,
    /** SERVICE_DATA_DIR (mirrors, scratch checkouts, git's HOME). */
    readonly dataDir: string,
    private readonly teardown: () => Promise<void>,
  ) {}

  static async boot(config: Record<string, unknown>, options: AppModuleOptions = {}): Promise<PublishServer> {
    const database = await createTestDatabase('publish_e2e');
    const keyPrefix = uniqueKeyPrefix('publish');
    const file = tempConfig('publish-e2e', {
      queue: { redis_retry_interval_seconds: 1, heartbeat_interval_seconds: 1, key_prefix: keyPrefix },
      sandbox: { backend: 'in-process', cpu: 1, memory: '1Gi' },
      ...config,
    });
    const env = testEnvironment({
      SERVICE_CONFIG: file.path,
      SERVICE_DATA_DIR: file.dir,
      DATABASE_URL: database.url,
      KVSTORE_URL: REDIS_URL,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
    });
    const redis = new Redis(REDIS_URL);
    const db = new pg.Pool({ connectionString: database.url, max: 2 });
    const teardown = async () => {
      await deleteKeys(redis, keyPrefix).catch(() => undefined);
      redis.disconnect();
      await db.end();
      await database.drop();
      file.remove();
    };
    let app: NestFastifyApplication;
    try {
      app = await bootApp(env, options);
      const database = app.get(DatabaseService);
      const store = app.get(StoreConnectionService);
      await eventually(async () => ((await database.open()).state === 'ready' && (await store.check()) ? true : undefined), 20_000, 'database and store');
    } catch (error) {
      await teardown();
      throw error;
    }
    return new PublishServer(app, db, file.dir, teardown);
  }

  /** Claims the ticket for `pipeline` as a trigger would; answers the run id. */
  async claim(platform: Platform, project: string, ticket: string, pipeline: string): Promise<string> {
    const outcome = await this.app.get(ClaimService).claim({ platform, project, ticket }, pipeline);
    if (outcome.outcome !== 'Claimed') throw new Error(`claim of ${project}/${ticket}: ${JSON.stringify(outcome)}`);
    return outcome.runId;
  }

  /** Starts a run of `pipeline` on a pull request (as the label trigger does); answers the run id. */
  async startOnPullRequest(platform: Platform, project: string, target: PullRequestTarget, pipeline: string): Promise<string> {
    const outcome = await this.app.get(PullRequestRunsService).start({ platform, project, target, pipeline });
    if (outcome.outcome !== 'Claimed') throw new Error(`run of ${project} ${target.repo}#${target.number}: ${JSON.stringify(outcome)}`);
    return outcome.runId;
  }

  /** Starts a run on a pull request and waits for its end. */
  async runOnPullRequest(platform: Platform, project: string, target: PullRequestTarget, pipeline: string, timeoutMs?: number): Promise<{ runId: string } & RunRow> {
    const runId = await this.startOnPullRequest(platform, project, target, pipeline);
    return { runId, ...(await this.finished(runId, timeoutMs)) };
  }

  /** Waits for the run to end (succeeded, failed or cancelled). */
  async finished(runId: string, timeoutMs = 20_000): Promise<RunRow> {
    return eventually(async () => {
      const { rows } = await this.db.query<RunRow>('SELECT state, error FROM runs WHERE id = $1', [runId]);
      const row = rows[0];
      return row && ['succeeded', 'failed', 'cancelled'].includes(row.state) ? row : undefined;
    }, timeoutMs, `run ${runId} to end`);
  }

  /** Claims and waits for the run's end. */
  async run(platform: Platform, project: string, ticket: string, pipeline: string, timeoutMs?: number): Promise<{ runId: string } & RunRow> {
    const runId = await this.claim(platform, project, ticket, pipeline);
    return { runId, ...(await this.finished(runId, timeoutMs)) };
  }

  /** The run's events in order (what the dashboard and the live feed show). */
  async events(runId: string): Promise<RunEventRow[]> {
    const { rows } = await this.db.query<RunEventRow>('SELECT kind, sandbox, text FROM run_events WHERE run_id = $1 ORDER BY seq', [runId]);
    return rows;
  }

  /** Every event text of every run this server recorded. */
  async allEventTexts(): Promise<string[]> {
    const { rows } = await this.db.query<{ text: string }>('SELECT text FROM run_events ORDER BY run_id, seq');
    return rows.map((r) => r.text);
  }

  /** GET through the HTTP layer (authentication is off: no `auth` block). */
  async get<T>(url: string): Promise<{ status: number; body: T }> {
    const res = await this.app.inject({ method: 'GET', url });
    return { status: res.statusCode, body: res.json() as T };
  }

  async close(): Promise<void> {
    await this.app.close();
    await this.teardown();
  }
}
