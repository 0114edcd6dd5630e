import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { githubExample } from '../fixtures/payload-fixtures.js';
import { freePort } from '../support/server-process.js';
import { type PrivateRedis, startPrivateRedis } from '../support/test-store.js';
import { StoreConnectionService } from '../../src/store/store-connection.service.js';
import {
  TEST_PIPELINES, TEST_PROJECTS, type Wire, adoUpdated, adoWire, githubLabeled, githubWire, gitlabIssueHook, gitlabWire, jiraUpdated, jiraWire,
} from './support/deliveries.js';
import {
  type WebhookBench, adminQuery, allJobCount, bootServer, createWebhookBench, eventually, holdBackgroundLeases, jobsFor, runsOf, ticketRow,
  triggerLogRows, sendWire,
} from './support/webhook-harness.js';

/**
 * The failure answers of the real server: the store down (503 `store_unavailable`, logged as
 * skipped) and a claim that fails in the database (500 `Claim failed: …`, nothing left half-claimed,
 * and the platform's retry succeeds once the database is back).
 */
let bench: WebhookBench;
const TEXT = 'text/plain; charset=utf-8';

const send = sendWire;

beforeAll(async () => {
  bench = await createWebhookBench({ projects: TEST_PROJECTS, pipelines: TEST_PIPELINES });
});

afterAll(async () => {
  await bench?.cleanup();
});

describe('store down (KVSTORE_URL points at a closed port)', () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    app = await bootServer(bench.environment({ KVSTORE_URL: `redis://127.0.0.1:${await freePort()}/0` }), { store: false });
  });
  afterAll(async () => {
    await app?.close();
  });

  it.each([
    ['platform A', githubWire('issues', githubLabeled(601), { delivery: randomUUID() }), 'platform-a', 'gh-main', '601'],
    ['platform B', gitlabWire('Issue Hook', gitlabIssueHook(602), { idempotencyKey: randomUUID() }), 'platform-b', 'gl-main', '602'],
    ['platform C', adoWire(adoUpdated(603, randomUUID())), 'platform-c', 'ado-main', '603'],
    ['platform D', jiraWire(jiraUpdated('JRA-604', 'Ready for Agent'), { identifier: randomUUID() }), 'platform-d', 'jira-main', 'JRA-604'],
  ] as const)('%s ticket trigger answers 503 store_unavailable and is logged skipped/store-unavailable', async (_name, wire, platform, project, ticket) => {
    const answer = await send(app, wire);
    expect(answer).toEqual({ status: 503, body: 'store_unavailable', contentType: TEXT });
    expect(await ticketRow(bench.db, platform, project, ticket)).toBeNull();
    expect(await runsOf(bench.db, platform, project, ticket)).toHaveLength(0);
    const [log] = await triggerLogRows(bench.db, { platform, ticket });
    expect(log).toMatchObject({ project, outcome: 'skipped', reason: 'store-unavailable', status_code: 503 });
  });

  it('still verifies signatures (401) and filters (200) while the store is down', async () => {
    expect((await send(app, githubWire('issues', githubLabeled(605), { signature: null }))).status).toBe(401);
    const filtered = await send(app, githubWire('issues', githubExample('issues', 'opened')));
    expect(filtered.status).toBe(200);
    expect(filtered.body).toMatch(/^Filtered: /);
  });

  it('the platform\'s redelivery is claimed once a server with the store up receives it', async () => {
    const delivery = randomUUID();
    const wire = githubWire('issues', githubLabeled(606), { delivery });
    expect((await send(app, wire)).status).toBe(503);
    const healthy = await bootServer(bench.environment());
    try {
      expect(await send(healthy, wire)).toEqual({ status: 202, body: 'Accepted: 606 in gh-main', contentType: TEXT });
      const row = await ticketRow(bench.db, 'platform-a', 'gh-main', '606');
      expect(row?.state).toBe('enqueued');
      expect(await jobsFor(bench.queue, row?.run_id ?? '')).toBe(1);
    } finally {
      await healthy.close();
    }
  });
});

describe('the store drops under a running server', () => {
  // Its own bench: a store re-check every 60 s, so only the connection's own events can tell the
  // server the store went (the 1 s re-check of the other benches would hide a missed drop).
  let dropBench: WebhookBench;
  let privateRedis: PrivateRedis;
  let app: NestFastifyApplication;

  beforeAll(async () => {
    dropBench = await createWebhookBench({ projects: TEST_PROJECTS, pipelines: TEST_PIPELINES, queue: { redis_retry_interval_seconds: 60 } });
    privateRedis = await startPrivateRedis(await freePort());
    await holdBackgroundLeases(privateRedis.client, dropBench.keyPrefix);
    app = await bootServer(dropBench.environment({ KVSTORE_URL: privateRedis.url }));
  });
  afterAll(async () => {
    await app?.close();
    await privateRedis?.kill();
    await dropBench?.cleanup();
  });

  it('answers 503 store_unavailable at once (not a 500), logged skipped/store-unavailable', async () => {
    expect(await send(app, githubWire('issues', githubLabeled(801), { delivery: randomUUID() })))
      .toEqual({ status: 202, body: 'Accepted: 801 in gh-main', contentType: TEXT });
    await privateRedis.kill();
    const client = app.get(StoreConnectionService).client;
    await eventually(async () => (client?.status === 'ready' ? undefined : true), 5000, 'the server\'s store client to see the drop');

    const delivery = randomUUID();
    expect(await send(app, githubWire('issues', githubLabeled(802), { delivery })))
      .toEqual({ status: 503, body: 'store_unavailable', contentType: TEXT });
    expect(await ticketRow(dropBench.db, 'platform-a', 'gh-main', '802')).toBeNull();
    const [log] = await triggerLogRows(dropBench.db, { delivery_id: delivery });
    expect(log).toMatchObject({ ticket: '802', outcome: 'skipped', reason: 'store-unavailable', status_code: 503 });
  });
});

describe('another delivery holds the claim lock', () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    app = await bootServer(bench.environment());
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers Already claimed without remembering it: a repeat of the delivery is judged again once the lock is free', async () => {
    // Another delivery's claim of 704 is in progress (it may yet fail): its lock is held.
    const lock = `${bench.keyPrefix}claim:platform-a:gh-main:704`;
    await bench.redis.set(lock, 'another-delivery', 'PX', 30_000);
    const delivery = randomUUID();
    const wire = githubWire('issues', githubLabeled(704), { delivery });
    expect(await send(app, wire)).toEqual({ status: 200, body: 'Already claimed: 704', contentType: TEXT });
    expect(await runsOf(bench.db, 'platform-a', 'gh-main', '704')).toHaveLength(0);

    // That claim failed and freed its lock; the platform (or an operator) redelivers this one.
    await bench.redis.del(lock);
    expect(await send(app, wire)).toEqual({ status: 202, body: 'Accepted: 704 in gh-main', contentType: TEXT });
    expect(await runsOf(bench.db, 'platform-a', 'gh-main', '704')).toHaveLength(1);
    const logs = await triggerLogRows(bench.db, { delivery_id: delivery }, 2);
    expect(logs.map((l) => [l.outcome, l.reason])).toEqual([['AlreadyClaimed', 'claim lock held'], ['Claimed', 'code']]);
  });
});

describe('claim failure in the database', () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    app = await bootServer(bench.environment());
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers 500 Claim failed: {error} while the runs table is gone, leaves nothing behind, and the retry is claimed after repair', async () => {
    const jobsBefore = await allJobCount(bench.queue);
    const delivery = randomUUID();
    const wire = githubWire('issues', githubLabeled(701), { delivery });
    await bench.db.query('ALTER TABLE runs RENAME TO runs_moved_away');
    let failed: Awaited<ReturnType<typeof send>>;
    try {
      failed = await send(app, wire);
    } finally {
      await bench.db.query('ALTER TABLE runs_moved_away RENAME TO runs');
    }
    expect(failed).toEqual({ status: 500, body: 'Claim failed: relation "runs" does not exist', contentType: TEXT });
    expect(await ticketRow(bench.db, 'platform-a', 'gh-main', '701')).toBeNull();
    expect(await runsOf(bench.db, 'platform-a', 'gh-main', '701')).toHaveLength(0);
    expect(await allJobCount(bench.queue)).toBe(jobsBefore);
    const [log] = await triggerLogRows(bench.db, { delivery_id: delivery, outcome: 'Failed' });
    expect(log).toMatchObject({ status_code: 500, reason: 'relation "runs" does not exist' });

    // A 500 asks the platform to retry; the retry (same delivery id) is claimed, not answered from memory.
    expect(await send(app, wire)).toEqual({ status: 202, body: 'Accepted: 701 in gh-main', contentType: TEXT });
    const runs = await runsOf(bench.db, 'platform-a', 'gh-main', '701');
    expect(runs).toHaveLength(1);
    expect(await jobsFor(bench.queue, runs[0]!.id)).toBe(1);
    // The claim lock of the failed attempt was released: nothing answers Already claimed wrongly.
    expect(await ticketRow(bench.db, 'platform-a', 'gh-main', '701')).toMatchObject({ state: 'enqueued', run_id: runs[0]!.id });
  });

  it('answers 500 when the database is dropped under the running server', async () => {
    // Last test of the file: the server's database disappears (connections terminated).
    await bench.db.end();
    await adminQuery(`DROP DATABASE ${bench.databaseName} WITH (FORCE)`);
    const answer = await send(app, githubWire('issues', githubLabeled(702)));
    expect(answer.status).toBe(500);
    expect(answer.body).toMatch(/^Claim failed: .+/);
    expect(answer.contentType).toBe(TEXT);
    // And the server keeps answering.
    expect((await send(app, githubWire('issues', githubLabeled(703), { signature: null }))).status).toBe(401);
  });
});
