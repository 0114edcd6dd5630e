import { Redis } from 'ioredis';
import pg from 'pg';
import type { ServiceEnvironment } from '../../../src/config/environment.js';
import { GitRemotes } from '../../support/git-remotes.js';
import { testEnvironment } from '../../support/test-env.js';
import { createTestDatabase } from '../../support/test-database.js';
import { REDIS_URL, deleteKeys, uniqueKeyPrefix } from '../../support/test-store.js';
import { tempConfig } from '../../support/temp-config.js';

export { eventually } from '../../support/eventually.js';
export { PG_ADMIN_URL } from '../../support/test-database.js';
export { REDIS_URL } from '../../support/test-store.js';

/**
 * Run-engine test support: a fresh migrated database, a unique store key prefix and a temp
 * `service.yml` with shortened timings (the shared pieces live in test/support).
 */
/** The spec's timings shortened so crash and recovery windows fit in a test. */
export const SHORT_QUEUE = {
  redis_retry_interval_seconds: 1,
  heartbeat_interval_seconds: 1,
  heartbeat_ttl_seconds: 3,
  stale_scan_interval_seconds: 1,
  reconcile_interval_seconds: 2,
  lease_ttl_seconds: 2,
};

export const TEST_PIPELINES = {
  hello: { commands: ['echo hello from $SERVICE_SANDBOX', 'echo warning >&2'], timeout_seconds: 60 },
  broken: { commands: ['echo before the failure', 'exit 3', 'echo never'], timeout_seconds: 60 },
  short: { commands: ['sleep 1'], timeout_seconds: 60 },
  medium: { commands: ['sleep 3'], timeout_seconds: 60 },
  slow: { commands: ['sleep 20'], timeout_seconds: 300 },
  instant: { commands: ['true'], timeout_seconds: 60 },
  where: { commands: ['echo "repo=$SERVICE_REPO prefix=$SERVICE_PATH_PREFIX dir=$PWD"', 'env | cut -d= -f1 | sort | tr "\\n" " "'], timeout_seconds: 60 },
};

export interface RunTestSetup {
  env: ServiceEnvironment;
  databaseUrl: string;
  keyPrefix: string;
  redis: Redis;
  db: pg.Pool;
  /** The real git remotes (smart HTTP) the default projects' repositories live on. */
  remotes: GitRemotes;
  /** Deletes every key under this setup's prefix. */
  flushPrefix(): Promise<number>;
  cleanup(): Promise<void>;
}

export interface RunTestOptions {
  queue?: Record<string, number>;
  capacity?: { cpu: number | string; memory: string };
  /**
   * The projects; a function receives the setup's GitRemotes, so their repositories can be real
   * remotes (`remotes.entry(name)`). Default: `solo` with one repository `solo-web` on a remote.
   */
  projects?: Record<string, unknown> | ((remotes: GitRemotes) => Record<string, unknown>);
  /** More command pipelines, beside TEST_PIPELINES. */
  pipelines?: Record<string, { commands: string[]; timeout_seconds: number }>;
  /** The sandbox block (default: in-process, 1 cpu, 2Gi). */
  sandbox?: Record<string, unknown>;
}

export async function createRunTestSetup(options: RunTestOptions = {}): Promise<RunTestSetup> {
  const database = await createTestDatabase('runs_test');
  const keyPrefix = uniqueKeyPrefix('runs');
  const remotes = await new GitRemotes().start();
  const projects = typeof options.projects === 'function' ? options.projects(remotes) : options.projects;
  const config = tempConfig('runs-test', {
    queue: { ...SHORT_QUEUE, ...options.queue, key_prefix: keyPrefix },
    pipelines: { ...TEST_PIPELINES, ...options.pipelines },
    ...(options.capacity ? { capacity: options.capacity } : {}),
    sandbox: options.sandbox ?? { backend: 'in-process', cpu: 1, memory: '2Gi' },
    projects: projects ?? { solo: { tracker: 'platform-a', repos: [remotes.entry('solo-web')] } },
  });
  const env = testEnvironment({
    SERVICE_CONFIG: config.path,
    SERVICE_DATA_DIR: config.dir,
    DATABASE_URL: database.url,
    KVSTORE_URL: REDIS_URL,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
  });
  const redis = new Redis(REDIS_URL);
  const db = new pg.Pool({ connectionString: database.url, max: 2 });
  const flushPrefix = () => deleteKeys(redis, keyPrefix);
  return {
    env, databaseUrl: database.url, keyPrefix, redis, db, remotes, flushPrefix,
    async cleanup() {
      await flushPrefix().catch(() => undefined);
      redis.disconnect();
      await db.end();
      await database.drop();
      await remotes.stop();
      config.remove();
    },
  };
}
