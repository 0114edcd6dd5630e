import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TicketState } from '../../src/database/entities/ticket.entity.js';
import { Platform } from '../../src/platforms/platform.js';
import { LABEL_PROJECTION_EVENT_KIND } from '../../src/tickets/label-projection/projection-events.recorder.js';
import type { RecordedRequest } from '../stand-ins/stand-in-server.js';
import { ProjectionApp } from './support/projection-app.js';
import { type ProjectionBench, startProjectionBench } from './support/projection-bench.js';
import { lifecycleLabels, type TrackerCase } from './support/tracker-cases.js';
import { eventually, sleep, type TicketTestSetup } from './support/ticket-test-setup.js';
import { CREDENTIALS, type Trackers } from './support/trackers.js';

/** Concurrent edits, a tracker that is down, rate limits and the label lock: the projection converges. */
let bench: ProjectionBench;
let trackers: Trackers;
let setup: TicketTestSetup;
let app: ProjectionApp;

beforeAll(async () => {
  bench = await startProjectionBench();
  ({ trackers, setup, app } = bench);
});

afterAll(async () => {
  await bench?.stop();
});

function caseOf(platform: Platform): TrackerCase {
  return bench.caseOf(platform);
}

const writeTo = (method: string, suffix: string) => (r: RecordedRequest) => r.method === method && r.path.endsWith(suffix);

describe('a concurrent edit between read and write', () => {
  it('platform A: the If-Match write answers 412, is re-read and retried, and keeps the other edit', async () => {
    const gh = caseOf(Platform.GitHub);
    gh.add(201, ['bug']);
    let edited = false;
    trackers.github.beforeNext(writeTo('PATCH', '/issues/201'), () => {
      trackers.github.concurrentEdit(201, (issue) => issue.labels.push('triaged'));
      edited = true;
    });
    const runId = await app.start(gh.key(201));
    await app.finish(runId);
    await eventually(() => (lifecycleLabels(gh.labels(201)).join() === 'service:done' ? true : undefined), 10_000, 'done label');
    expect(edited).toBe(true);
    // Had the stale write gone through, `triaged` (added after our read) would be gone.
    expect(gh.labels(201)).toEqual(expect.arrayContaining(['bug', 'triaged', 'service:done']));
  });

  it.each([409, 412] as const)('platform C: the /rev test answers %i, is re-read and retried, and keeps the other edit', async (status) => {
    const ado = caseOf(Platform.AzureDevOps);
    const n = 200 + status;
    trackers.ado.testFailureStatus = status;
    ado.add(n, ['bug']);
    let edited = false;
    trackers.ado.beforeNext((r) => r.method === 'PATCH' && r.path.endsWith(`/workitems/${n}`)
      && (r.body as { path: string }[]).some((op) => op.path === '/fields/System.Tags'), () => {
      trackers.ado.concurrentEdit(n, (item) => {
        item.fields['System.Tags'] = `${item.fields['System.Tags'] ?? ''}; triaged`;
      });
      edited = true;
    });
    const runId = await app.start(ado.key(n));
    await app.finish(runId, 'boom');
    await eventually(() => (lifecycleLabels(ado.labels(n)).join() === 'service:failed' ? true : undefined), 10_000, 'failed tag');
    expect(edited).toBe(true);
    expect(ado.labels(n)).toEqual(expect.arrayContaining(['bug', 'triaged', 'service:failed']));
    trackers.ado.testFailureStatus = 412;
  });
});

describe('a tracker that is down during the transitions', () => {
  it('leaves the database state standing, reports the failure on the run, and the label catches up (only the latest state) when it returns', async () => {
    const gl = caseOf(Platform.GitLab);
    gl.add(301, ['bug']);
    trackers.gitlab.setDown('unavailable');
    const runId = await app.start(gl.key(301));
    await app.finish(runId);
    expect((await app.lifecycle.find(gl.key(301)))?.state).toBe(TicketState.Done);

    // Retries exhausted → the ticket sits in the stale-labels set, the failures are run events.
    await eventually(() => (app.projection.staleTickets().some((t) => t.startsWith('billing/301')) ? true : undefined), 15_000, 'stale-labels set');
    expect(lifecycleLabels(gl.labels(301))).toEqual([]);
    const events = await eventually(async () => {
      const rows = (await setup.db.query('SELECT kind, text FROM run_events WHERE run_id = $1 AND kind = $2 ORDER BY seq', [runId, LABEL_PROJECTION_EVENT_KIND])).rows as { text: string }[];
      return rows.some((r) => /stale-labels set/.test(r.text)) ? rows : undefined;
    }, 10_000, 'label-projection run events');
    // Every failed write is a run event; the latest state's failure is among them (on a loaded
    // machine an attempt for an earlier state may come first, before the run had ended).
    expect(events[0]?.text).toMatch(/label service:[a-z-]+ on billing\/301 \(platform-b\) not written: .*503/);
    expect(events.some((e) => /label service:done on billing\/301 \(platform-b\) not written: .*503/.test(e.text))).toBe(true);
    for (const e of events) expect(e.text).not.toContain(CREDENTIALS.gitlab);
    expect((await app.lifecycle.find(gl.key(301)))?.state).toBe(TicketState.Done);

    trackers.gitlab.clearRequests();
    trackers.gitlab.setDown(null);
    await eventually(() => (lifecycleLabels(gl.labels(301)).join() === 'service:done' && gl.status(301) === 'done' ? true : undefined),
      10_000, 'label caught up');
    // Coalesced: the enqueued and in-progress states were never written, only the latest.
    const added = trackers.gitlab.requests.filter((r) => r.method === 'PUT').map((r) => (r.body as { add_labels?: string }).add_labels);
    expect(added.filter((l) => l?.startsWith('service:'))).toEqual(['service:done']);
    await eventually(() => (app.projection.staleTickets().length === 0 ? true : undefined), 5_000, 'stale set empty');
    await eventually(async () => {
      const rows = (await setup.db.query('SELECT text FROM run_events WHERE run_id = $1 AND kind = $2', [runId, LABEL_PROJECTION_EVENT_KIND])).rows as { text: string }[];
      return rows.some((r) => /caught up/.test(r.text)) ? true : undefined;
    }, 5_000, 'recovery event');
  });

  it('platform A refusing connections: the label catches up after the tracker returns', async () => {
    const gh = caseOf(Platform.GitHub);
    gh.add(302, []);
    trackers.github.setDown('refuse');
    const runId = await app.start(gh.key(302));
    await sleep(400);
    trackers.github.setDown(null);
    await eventually(() => (lifecycleLabels(gh.labels(302)).join() === 'service:in-progress' ? true : undefined), 10_000, 'in-progress label');
    await app.finish(runId);
    await eventually(() => (lifecycleLabels(gh.labels(302)).join() === 'service:done' ? true : undefined), 10_000, 'done label');
  });
});

describe('rate limits', () => {
  it('a 429 with Retry-After holds every write to that host for the time asked', async () => {
    const gh = caseOf(Platform.GitHub);
    gh.add(401, []);
    gh.add(402, []);
    trackers.github.failNext(1, { status: 429, retryAfterSeconds: 2, match: writeTo('PATCH', '/issues/401') });
    const written: Record<string, number> = {};
    trackers.github.beforeNext(writeTo('PATCH', '/issues/401'), () => (written['401'] = Date.now()));
    trackers.github.beforeNext(writeTo('PATCH', '/issues/402'), () => (written['402'] = Date.now()));
    const t0 = Date.now();
    await app.claim(gh.key(401));
    await eventually(() => (trackers.github.requests.some((r) => r.method === 'PATCH' && r.path.endsWith('/issues/401')) ? true : undefined), 5_000, 'first write answered 429');
    await app.claim(gh.key(402));
    await eventually(() => (lifecycleLabels(gh.labels(401)).join() === 'service:enqueued' && lifecycleLabels(gh.labels(402)).join() === 'service:enqueued' ? true : undefined),
      10_000, 'both labels written');
    expect(written['401']! - t0).toBeGreaterThanOrEqual(1_900);
    expect(written['402']! - t0).toBeGreaterThanOrEqual(1_900);
  });
});

describe('the per-host write budget', () => {
  it('queues a burst beyond the budget instead of sending it at once', async () => {
    const gh = caseOf(Platform.GitHub);
    const budget = { ...Object.fromEntries(Object.values(Platform).map((p) => [p, { perMinute: 6_000, burst: 50 }])), [Platform.GitHub]: { perMinute: 120, burst: 2 } };
    const limited = await ProjectionApp.boot(setup.env, { rateLimits: budget as Record<Platform, { perMinute: number; burst: number }> });
    try {
      const tickets = [451, 452, 453, 454, 455];
      const written: number[] = [];
      for (const n of tickets) {
        gh.add(n, []);
        trackers.github.beforeNext(writeTo('PATCH', `/issues/${n}`), () => written.push(Date.now()));
      }
      await Promise.all(tickets.map((n) => limited.claim(gh.key(n))));
      await eventually(() => (tickets.every((n) => lifecycleLabels(gh.labels(n)).join() === 'service:enqueued') ? true : undefined), 10_000, 'all labels');
      written.sort((a, b) => a - b);
      // Two at once (the burst), then one per 500 ms.
      expect(written[4]! - written[0]!).toBeGreaterThanOrEqual(1_350);
    } finally {
      await limited.close();
    }
  });
});

describe('platform D label lock', () => {
  it('a held svc:labellock answers PreconditionFailed; the write is retried after the lock is gone', async () => {
    const jira = caseOf(Platform.Jira);
    jira.add(501, ['bug']);
    const lockKey = `${setup.keyPrefix}labellock:platform-d:jiraproj:BILL-501`;
    await setup.redis.set(lockKey, 'someone-else', 'PX', 1_500);
    const runId = await app.start(jira.key(501));
    await sleep(800);
    expect(lifecycleLabels(jira.labels(501))).toEqual([]);
    expect(trackers.jira.requests.some((r) => r.method === 'PUT' && r.path.endsWith('/issue/BILL-501'))).toBe(false);
    await eventually(() => (lifecycleLabels(jira.labels(501)).join() === 'service:in-progress' ? true : undefined), 10_000, 'label after the lock');
    expect(jira.labels(501)).toContain('bug');
    await app.finish(runId);
    await eventually(() => (lifecycleLabels(jira.labels(501)).join() === 'service:done' ? true : undefined), 10_000, 'done label');
    expect(await setup.redis.exists(lockKey)).toBe(0); // released after each write
  });
});
