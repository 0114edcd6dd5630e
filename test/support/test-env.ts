import { type ServiceEnvironment, readEnvironment } from '../../src/config/environment.js';
import { type TempConfig, tempConfig } from './temp-config.js';
import { REDIS_URL, uniqueKeyPrefix } from './test-store.js';

/**
 * The process environment a test boots with: only what it names, nothing ambient (a developer's
 * DATABASE_URL or KVSTORE_URL never leaks into a test). Listens on any free port of 127.0.0.1.
 */
export function testEnvironment(vars: Record<string, string | undefined>): ServiceEnvironment {
  return readEnvironment({
    PATH: process.env.PATH,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...vars,
  });
}

export interface TestEnvOptions {
  /** Further top-level blocks of service.yml; `queue` keys are merged over the test defaults. */
  config?: Record<string, unknown>;
  /** DATABASE_URL (e.g. a `createTestDatabase` url); unset → the embedded database in the temp dir. */
  databaseUrl?: string;
  /** Point KVSTORE_URL at the machine's Redis (default true); false leaves the store unset. */
  store?: boolean;
  /** More variables, applied last (they may replace any of the above). */
  vars?: Record<string, string | undefined>;
}

export interface TestEnv {
  /** What `createServer(env)` takes. */
  env: ServiceEnvironment;
  /** This test's own store key prefix (`test-<label>-<random>:`). */
  keyPrefix: string;
  /** The temp folder: SERVICE_DATA_DIR, and where `service.yml` lives. */
  dataDir: string;
  /** The temp `service.yml` (rewrite it with `config.write` and `environment()` for a second boot). */
  config: TempConfig;
  /** The environment again, with `overrides` (e.g. `{ KVSTORE_URL: undefined }`). */
  environment(overrides?: Record<string, string | undefined>): ServiceEnvironment;
  /** Removes the temp folder (store keys: `deleteKeys(redis, keyPrefix)`). */
  remove(): void;
}

/** Store timings short enough for a test to see a subsystem change within a second or two. */
export const TEST_QUEUE = { redis_retry_interval_seconds: 1 } as const;

/**
 * A temp data dir and a temp `service.yml` whose `queue.key_prefix` is unique to this call, so
 * test files running in parallel against one Redis never see each other's keys.
 */
export function createTestEnv(label: string, opts: TestEnvOptions = {}): TestEnv {
  const keyPrefix = uniqueKeyPrefix(label);
  const extraQueue = (opts.config?.queue ?? {}) as Record<string, unknown>;
  const config = tempConfig(`test-env-${label}`, { ...opts.config, queue: { ...TEST_QUEUE, ...extraQueue, key_prefix: keyPrefix } });
  const base: Record<string, string | undefined> = {
    SERVICE_CONFIG: config.path,
    SERVICE_DATA_DIR: config.dir,
    DATABASE_URL: opts.databaseUrl,
    KVSTORE_URL: opts.store === false ? undefined : REDIS_URL,
    ...opts.vars,
  };
  const environment = (overrides: Record<string, string | undefined> = {}) => testEnvironment({ ...base, ...overrides });
  return { env: environment(), keyPrefix, dataDir: config.dir, config, environment, remove: () => config.remove() };
}
