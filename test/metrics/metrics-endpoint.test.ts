import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigService } from '../../src/config/config.service.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import { bootApp } from '../support/test-app.js';
import { type TcpProxy, startTcpProxy } from '../support/tcp-proxy.js';
import { type TestDatabase, createTestDatabase } from '../support/test-database.js';
import { testEnvironment } from '../support/test-env.js';
import { REDIS_URL, deleteKeys, uniqueKeyPrefix } from '../support/test-store.js';
import { type TempConfig, tempConfig } from '../support/temp-config.js';
import { createBareRepository } from '../stand-ins/git-repositories.js';
import { GitHubStandIn } from '../stand-ins/github-stand-in.js';
import { bootRunApp } from '../runs/support/run-test-app.js';
import { SHORT_QUEUE, eventually } from '../runs/support/run-test-setup.js';
import { githubLabeled, githubWire } from '../webhooks/support/deliveries.js';
import { SECRETS, sendWire } from '../webhooks/support/webhook-harness.js';
import { type Scrape, find, scrape, value } from './support/exposition.js';

/**
 * GET /metrics on the real server (real PostgreSQL, Redis, a GitHub stand-in for the labels):
 * a signed delivery claims a ticket, its command pipeline runs to the end, and the counters and
 * histograms of each step move; the gauges read at scrape time are there, a dependency that
 * cannot be read never fails the scrape, nothing identifying a ticket reaches a label, and
 * `metrics.enabled: false` turns the route into a 404.
 */
const TICKET = 987123;
const GH_TOKEN = 'ghp_metricsTestToken000001';
const GI = 1024 ** 3;
const SUBSYSTEMS = ['queue_consumer', 'housekeeping', 'poller', 'capacity_queue', 'redis'];

let database: TestDatabase;
let config: TempConfig;
let keyPrefix: string;
let github: GitHubStandIn;
/** The repository's url: on the stand-in, which serves its git as well. */
let REPO: string;
let repositories: string;
let dbProxy: TcpProxy;
let storeProxy: TcpProxy;
let pool: pg.Pool;
let app: NestFastifyApplication;

function serviceConfig(metricsEnabled: boolean): Record<string, unknown> {
  return {
    queue: { ...SHORT_QUEUE, key_prefix: keyPrefix },
    pipelines: { quick: { commands: ['true'], timeout_seconds: 60 } },
    capacity: { cpu: 8, memory: '16Gi' },
    sandbox: { backend: 'in-process', cpu: 1, memory: '1Gi' },
    secrets: { GH_TOKEN },
    metrics: { enabled: metricsEnabled },
    projects: {
      shop: {
        tracker: 'platform-a',
        repos: [{ name: 'shop-web', platform: 'platform-a', url: REPO, api_url: github.apiUrl, auth_secret: '${GH_TOKEN}' }],
        platform_a_trigger: { pipeline_from_label: { bug: 'quick' } },
      },
    },
  };
}

/** The server's environment; the database and the store are reached through proxies a test can cut. */
function environment() {
  const databaseUrl = new URL(database.url);
  databaseUrl.port = String(dbProxy.port);
  return testEnvironment({
    SERVICE_CONFIG: config.path,
    SERVICE_DATA_DIR: config.dir,
    DATABASE_URL: databaseUrl.toString(),
    KVSTORE_URL: `redis://127.0.0.1:${storeProxy.port}/0`,
    PLATFORM_A_WEBHOOK_SECRET: SECRETS.platformA,
  });
}

beforeAll(async () => {
  database = await createTestDatabase('metrics_test');
  keyPrefix = uniqueKeyPrefix('metrics');
  github = await new GitHubStandIn(GH_TOKEN, 'acme', 'shop-web').start();
  github.addIssue(TICKET, ['bug']);
  repositories = mkdtempSync(join(tmpdir(), 'metrics-test-git-'));
  createBareRepository(join(repositories, 'shop-web.git'), { defaultBranch: 'main' });
  github.mountGit('/acme/shop-web', { repository: join(repositories, 'shop-web.git'), credential: { username: 'x-access-token', password: GH_TOKEN } });
  REPO = `${github.url}/acme/shop-web`;
  dbProxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(database.url).port || 5432) });
  const redisUrl = new URL(REDIS_URL);
  storeProxy = await startTcpProxy({ host: redisUrl.hostname, port: Number(redisUrl.port || 6379) });
  config = tempConfig('metrics-test', serviceConfig(true));
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  app = await bootRunApp(environment());
});

afterAll(async () => {
  await dbProxy?.restore().catch(() => undefined);
  await storeProxy?.restore().catch(() => undefined);
  await app?.close();
  await pool?.end();
  await dbProxy?.close();
  await storeProxy?.close();
  await github?.stop();
  if (repositories) rmSync(repositories, { recursive: true, force: true });
  const redis = new Redis(REDIS_URL);
  await deleteKeys(redis, keyPrefix).catch(() => undefined);
  redis.disconnect();
  await database?.drop();
  config?.remove();
});

/** The run of the ticket, once it ended. */
async function endedRun(ticket: number): Promise<{ id: string; state: string }> {
  return eventually(async () => {
    const { rows } = await pool.query<{ id: string; state: string }>('SELECT id, state FROM runs WHERE ticket = $1', [String(ticket)]);
    return rows[0] && ['succeeded', 'failed'].includes(rows[0].state) ? rows[0] : undefined;
  }, 20_000, `the run of ticket ${ticket} to end`);
}

describe('GET /metrics', () => {
  const delivery = randomUUID();
  const title = String((githubLabeled(TICKET)['issue'] as { title: string }).title);
  let before: Scrape;
  let after: Scrape;

  it('answers the Prometheus text format, without a token', async () => {
    before = await scrape(app);
    expect(before.status).toBe(200);
    expect(before.contentType).toBe(app.get(MetricsService).registry.contentType);
    expect(before.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(before.samples.length).toBeGreaterThan(0);
  });

  it('moves the delivery, claim, transition, label and run metrics when a delivery runs a pipeline to its end', async () => {
    const body = githubLabeled(TICKET, { repoUrl: REPO, label: 'bug' });
    const reply = await sendWire(app, githubWire('issues', body, { delivery }));
    expect(reply).toMatchObject({ status: 202, body: `Accepted: ${TICKET} in shop` });
    const run = await endedRun(TICKET);
    expect(run.state).toBe('succeeded');
    // The label projection runs after each transition; the run ends before its last write.
    await eventually(async () => (github.issues.get(TICKET)?.labels.includes('service:done') ? true : undefined), 15_000, 'the done label');
    after = await eventually(async () => {
      const s = await scrape(app);
      return value(s, 'pipeline_service_runs_finished_total', { pipeline: 'quick', state: 'succeeded' }) > 0
        && value(s, 'pipeline_service_label_writes_total', { platform: 'platform-a', result: 'Updated' }) > 0 ? s : undefined;
    }, 10_000, 'the run and its label in the metrics');

    const moved = (name: string, labels: Record<string, string> = {}) => value(after, name, labels) - value(before, name, labels);
    expect(moved('pipeline_service_webhook_deliveries_total', { platform: 'platform-a', outcome: 'Claimed' })).toBe(1);
    expect(moved('pipeline_service_claims_total', { outcome: 'Claimed' })).toBe(1);
    expect(moved('pipeline_service_claim_duration_seconds_count')).toBe(1);
    expect(moved('pipeline_service_ticket_transitions_total', { from: 'pending', to: 'enqueued' })).toBe(1);
    expect(moved('pipeline_service_ticket_transitions_total', { from: 'enqueued', to: 'in_progress' })).toBe(1);
    expect(moved('pipeline_service_ticket_transitions_total', { from: 'in_progress', to: 'done' })).toBe(1);
    expect(moved('pipeline_service_runs_started_total', { pipeline: 'quick' })).toBe(1);
    expect(moved('pipeline_service_runs_finished_total', { pipeline: 'quick', state: 'succeeded' })).toBe(1);
    expect(moved('pipeline_service_run_queue_wait_seconds_count')).toBe(1);
    expect(moved('pipeline_service_run_duration_seconds_count', { pipeline: 'quick', state: 'succeeded' })).toBe(1);
    expect(moved('pipeline_service_label_writes_total', { platform: 'platform-a', result: 'Updated' })).toBeGreaterThanOrEqual(1);
    // The histograms measured something plausible: the claim took well under its lock's 30 s.
    const claimSeconds = moved('pipeline_service_claim_duration_seconds_sum');
    expect(claimSeconds).toBeGreaterThan(0);
    expect(claimSeconds).toBeLessThan(5);
    expect(moved('pipeline_service_run_duration_seconds_sum', { pipeline: 'quick', state: 'succeeded' })).toBeGreaterThan(0);
  });

  it('puts no ticket id, title, delivery id, URL or secret into the exposition', async () => {
    expect(after, 'the previous test scraped after the run').toBeDefined();
    const labelValues = after.samples.flatMap((s) => Object.values(s.labels));
    expect(labelValues.filter((v) => v.includes(String(TICKET)))).toEqual([]);
    // A sample value could in principle equal the number, so the id is sought as a token.
    expect(after.text).not.toMatch(new RegExp(`(^|[^0-9.])${TICKET}([^0-9.]|$)`, 'm'));
    for (const secretOrId of [title, delivery, REPO, github.apiUrl, SECRETS.platformA, GH_TOKEN]) {
      expect(after.text).not.toContain(secretOrId);
    }
  });

  it('labels refused deliveries by platform and outcome, an undetectable sender as unknown', async () => {
    const first = await scrape(app);
    const forged = await sendWire(app, githubWire('issues', githubLabeled(TICKET + 1, { repoUrl: REPO }), { signature: 'sha256=00' }));
    expect(forged.status).toBe(401);
    const anonymous = await app.inject({ method: 'POST', url: '/webhook', headers: { 'content-type': 'application/json' }, payload: '{"hello":"world"}' });
    expect(anonymous.statusCode).toBe(400);
    const second = await scrape(app);
    const moved = (labels: Record<string, string>) => value(second, 'pipeline_service_webhook_deliveries_total', labels)
      - value(first, 'pipeline_service_webhook_deliveries_total', labels);
    expect(moved({ platform: 'platform-a', outcome: 'unauthorized' })).toBe(1);
    expect(moved({ platform: 'unknown', outcome: 'invalid' })).toBe(1);
    expect(moved({ platform: 'platform-a', outcome: 'Claimed' })).toBe(0);
  });

  it('has one state gauge per subsystem and state, the queue depth, capacity in use and free, and process metrics', async () => {
    const s = await eventually(async () => {
      const scraped = await scrape(app);
      return value(scraped, 'pipeline_service_subsystem_state', { subsystem: 'redis', state: 'up' }) === 1 ? scraped : undefined;
    }, 10_000, 'redis up in the metrics');
    for (const subsystem of SUBSYSTEMS) {
      const states = find(s, 'pipeline_service_subsystem_state', { subsystem });
      expect(states.map((x) => x.labels.state).sort(), subsystem).toEqual(['degraded', 'disabled', 'down', 'up']);
      expect(states.filter((x) => x.value === 1), subsystem).toHaveLength(1);
    }
    expect(find(s, 'pipeline_service_queue_depth').map((x) => x.labels.state).sort()).toEqual(['active', 'delayed', 'prioritized', 'waiting']);
    const cpu = { inUse: value(s, 'pipeline_service_capacity_cpu_cores', { state: 'in_use' }), free: value(s, 'pipeline_service_capacity_cpu_cores', { state: 'free' }) };
    expect(find(s, 'pipeline_service_capacity_cpu_cores')).toHaveLength(2);
    expect(cpu.inUse + cpu.free).toBe(8);
    const memory = { inUse: value(s, 'pipeline_service_capacity_memory_bytes', { state: 'in_use' }), free: value(s, 'pipeline_service_capacity_memory_bytes', { state: 'free' }) };
    expect(find(s, 'pipeline_service_capacity_memory_bytes')).toHaveLength(2);
    expect(memory.inUse + memory.free).toBe(16 * GI);
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds']) {
      expect(find(s, name), name).not.toEqual([]);
    }
  });

  it('counts a run that holds capacity as in use while it runs', async () => {
    // A second ticket whose pipeline outlives the scrape; `quick` is swapped for a slower one.
    config.write({ ...serviceConfig(true), pipelines: { quick: { commands: ['sleep 3'], timeout_seconds: 60 } } });
    app.get(ConfigService).reload();
    github.addIssue(TICKET + 2, ['bug']);
    const reply = await sendWire(app, githubWire('issues', githubLabeled(TICKET + 2, { repoUrl: REPO, label: 'bug' }), { delivery: randomUUID() }));
    expect(reply.status).toBe(202);
    const s = await eventually(async () => {
      const scraped = await scrape(app);
      return value(scraped, 'pipeline_service_capacity_cpu_cores', { state: 'in_use' }) === 1 ? scraped : undefined;
    }, 15_000, 'one core in use');
    expect(value(s, 'pipeline_service_capacity_cpu_cores', { state: 'free' })).toBe(7);
    expect(value(s, 'pipeline_service_capacity_memory_bytes', { state: 'in_use' })).toBe(GI);
    expect(value(s, 'pipeline_service_queue_depth', { state: 'active' })).toBe(1);
    expect((await endedRun(TICKET + 2)).state).toBe('succeeded');
  });

  it('still answers when the store and the database cannot be read, leaving their gauges out', async () => {
    const first = await scrape(app);
    await Promise.all([storeProxy.cut(), dbProxy.cut()]);
    try {
      const started = Date.now();
      const s = await scrape(app);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(s.status).toBe(200);
      expect(find(s, 'pipeline_service_queue_depth')).toEqual([]);
      expect(find(s, 'pipeline_service_capacity_cpu_cores')).toEqual([]);
      expect(find(s, 'pipeline_service_capacity_memory_bytes')).toEqual([]);
      for (const collector of ['queue_depth', 'capacity']) {
        const failures = value(s, 'pipeline_service_metrics_collection_failures_total', { collector })
          - value(first, 'pipeline_service_metrics_collection_failures_total', { collector });
        expect(failures, collector).toBeGreaterThanOrEqual(1);
      }
      expect(find(s, 'pipeline_service_subsystem_state', { subsystem: 'redis' })).toHaveLength(4);
    } finally {
      await Promise.all([storeProxy.restore(), dbProxy.restore()]);
    }
    // Back once the store answers again.
    await eventually(async () => (find(await scrape(app), 'pipeline_service_queue_depth').length === 4 ? true : undefined), 20_000, 'the queue depth back');
  }, 40_000);
});

describe('with metrics.enabled: false', () => {
  it('answers 404 and collects nothing, deliveries and process metrics included', async () => {
    await app.close();
    config.write(serviceConfig(false));
    app = await bootApp(environment());
    const response = await app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(404);
    const forged = await sendWire(app, githubWire('issues', githubLabeled(TICKET + 3, { repoUrl: REPO }), { signature: 'sha256=00' }));
    expect(forged.status).toBe(401);
    const metrics = app.get(MetricsService);
    expect(metrics.enabled).toBe(false);
    const collected = await metrics.registry.getMetricsAsJSON();
    // Unlabelled histograms keep zeroed buckets from their creation; nothing may be above zero.
    expect(collected.filter((m) => m.values.some((v) => v.value !== 0)).map((m) => m.name)).toEqual([]);
    expect(collected.map((m) => m.name)).not.toContain('process_cpu_user_seconds_total');
  });
});
