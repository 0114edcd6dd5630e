import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import { LifecycleTrigger } from '../../src/tickets/lifecycle.js';
import { FAST_OPTIONS, ProjectionApp } from './support/projection-app.js';
import { type TrackerCase, lifecycleLabels, trackerCases } from './support/tracker-cases.js';
import { type TicketTestSetup, createTicketTestSetup, eventually, sleep } from './support/ticket-test-setup.js';
import { type Trackers, startTrackers, stopTrackers, trackerProjects } from './support/trackers.js';

/**
 * Two replicas (two apps on one database and store) projecting the same tickets: a slow write by
 * one must never leave an older state on the ticket after the other wrote a newer one, and a
 * retried done status must not land after the ticket was triggered again.
 * (Cases from a review that reproduced each defect; they failed before the fixes.)
 */
let trackers: Trackers;
let setup: TicketTestSetup;
/** Replica X: the claim side, whose tracker calls can be slowed. */
let x: ProjectionApp;
/** Replica Y: the consumer side, which moves the tickets on. */
let y: ProjectionApp;
let cases: TrackerCase[];

const slowGets = new Set<string>();
let slowJiraPut: string | null = null;
const slowFetch: typeof fetch = async (input, init) => {
  const path = new URL(String(input)).pathname;
  const slowGet = [...slowGets].find((suffix) => init?.method === 'GET' && path.endsWith(suffix));
  if (slowGet) {
    slowGets.delete(slowGet);
    await sleep(1500);
  }
  if (slowJiraPut !== null && init?.method === 'PUT' && path.endsWith(slowJiraPut)) {
    slowJiraPut = null;
    await sleep(12_000); // longer than the 10 s label lock
  }
  return fetch(input, init);
};

beforeAll(async () => {
  trackers = await startTrackers();
  setup = await createTicketTestSetup(trackerProjects(trackers));
  x = await ProjectionApp.boot(setup.env, { http: { ...FAST_OPTIONS.http, timeoutMs: 30_000, fetch: slowFetch } });
  y = await ProjectionApp.boot(setup.env);
  cases = trackerCases(trackers);
});

afterAll(async () => {
  await x?.close();
  await y?.close();
  await stopTrackers(trackers);
  await setup?.cleanup();
});

const caseOf = (platform: Platform): TrackerCase => cases.find((c) => c.platform === platform)!;

describe('a slow label write on one replica, overtaken by Done on the other', () => {
  it.each([
    [Platform.GitHub, 501, '/issues/501'],
    [Platform.GitLab, 502, '/issues/502'],
    [Platform.AzureDevOps, 503, '/workitems/503'],
    [Platform.Jira, 504, '/BILL-504'],
  ] as const)('%s: the ticket ends with service:done', async (platform, n, slowPath) => {
    const c = caseOf(platform);
    c.add(n, ['bug']);
    slowGets.add(slowPath);
    const runId = await x.claim(c.key(n)); // X hears Enqueued; its read of the ticket is slow
    await sleep(100);
    await y.lifecycle.transition(runId, LifecycleTrigger.Dequeue);
    await y.lifecycle.transition(runId, LifecycleTrigger.Succeed);
    await sleep(3000);
    await x.projection.idle();
    await y.projection.idle();
    expect(lifecycleLabels(c.labels(n))).toEqual(['service:done']);
    expect(c.labels(n)).toContain('bug');
  });

  it('Jira: a write that outlives its 10 s label lock is followed by the newer state', async () => {
    const c = caseOf(Platform.Jira);
    c.add(701, ['bug']);
    slowJiraPut = '/BILL-701';
    const runId = await x.claim(c.key(701)); // X: lock, state enqueued, read, then a 12 s write
    await sleep(200);
    await y.lifecycle.transition(runId, LifecycleTrigger.Dequeue);
    await y.lifecycle.transition(runId, LifecycleTrigger.Succeed);
    await sleep(14_000);
    await x.projection.idle();
    await y.projection.idle();
    expect(lifecycleLabels(c.labels(701))).toEqual(['service:done']);
  }, 60_000);
});

describe('a done status still being retried when the ticket is triggered again', () => {
  it('Jira: is dropped, not applied over the new run', async () => {
    const c = caseOf(Platform.Jira);
    c.add(601, ['bug']);
    const runId = await x.claim(c.key(601));
    await x.projection.idle();
    await y.lifecycle.transition(runId, LifecycleTrigger.Dequeue);
    // Y's done-status transition fails for a while (Jira busy) …
    let busy = true;
    const transitionPost = (r: { method: string; path: string }) => r.method === 'POST' && r.path.endsWith('/BILL-601/transitions');
    trackers.jira.failNext(1000, { status: 503, match: (r) => busy && transitionPost(r) });
    await y.lifecycle.transition(runId, LifecycleTrigger.Succeed);
    await eventually(() => (trackers.jira.requests.some(transitionPost) ? true : undefined), 10_000, 'a refused done-status write');
    // … a person moves the issue back to the trigger status; the webhook reaches X: a new run.
    trackers.jira.issues.get('BILL-601')!.status = 'Ready for Agent';
    await x.claim(c.key(601));
    await x.projection.idle();
    // Jira stays busy until Y has dropped the status: a try already past its check when the claim
    // committed is refused, not let through (the window a status write without a condition keeps).
    await eventually(() => (y.projection.pendingTickets().length === 0 ? true : undefined), 15_000, "Y's done status dropped");
    busy = false;
    await sleep(1500); // a retry round would have come
    expect((await y.lifecycle.find(c.key(601)))?.state).toBe('enqueued');
    expect(c.status(601)).toBe('Ready for Agent');
  });
});
