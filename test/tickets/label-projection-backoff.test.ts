import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import { LABEL_PROJECTION_EVENT_KIND } from '../../src/tickets/label-projection/projection-events.recorder.js';
import type { LabelProjectionOptions } from '../../src/tickets/label-projection/label-projection.options.js';
import { RECOVERY_PROBE_USER_AGENT } from '../../src/tickets/label-projection/project-tracker.factory.js';
import type { RecordedRequest } from '../stand-ins/stand-in-server.js';
import { ProjectionApp } from './support/projection-app.js';
import { type TrackerCase, lifecycleLabels, trackerCases } from './support/tracker-cases.js';
import { type TicketTestSetup, createTicketTestSetup, eventually } from './support/ticket-test-setup.js';
import { type Trackers, startTrackers, stopTrackers, trackerProjects } from './support/trackers.js';

/**
 * Retries of a label while its tracker is down, timed by what the stand-in tracker received:
 * they follow the back-off the projection announces ("next try in … s"), and a tracker that
 * answers again is noticed by the recovery probe, so its labels do not wait the back-off out.
 */
let trackers: Trackers;
let setup: TicketTestSetup;
let gl: TrackerCase;
let app: ProjectionApp | null = null;

/** An announced delay is rounded to 0.1 s; timers never fire early, so this only absorbs the rounding. */
const ROUNDING_MS = 60;

beforeAll(async () => {
  trackers = await startTrackers();
  setup = await createTicketTestSetup(trackerProjects(trackers));
  gl = trackerCases(trackers).find((c) => c.platform === Platform.GitLab)!;
});

afterEach(async () => {
  trackers.gitlab.setDown(null);
  await app?.close();
  app = null;
  trackers.gitlab.clearRequests();
});

/**
 * The projecting app with `options`. Without the start-up catch-up: earlier tests' tickets
 * would be other traffic to the same host, and a success among it retries what waits at once.
 */
function boot(options: Partial<LabelProjectionOptions>): Promise<ProjectionApp> {
  return ProjectionApp.boot(setup.env, { catchUpWindowMs: 1, ...options });
}

afterAll(async () => {
  await stopTrackers(trackers);
  await setup?.cleanup();
});

const isProbe = (r: RecordedRequest) => r.headers['user-agent'] === RECOVERY_PROBE_USER_AGENT;
/** The projection's attempts on the issue (one GET each with a single HTTP try), probes aside. */
const attemptsOn = (n: number) => (r: RecordedRequest) => r.method === 'GET' && r.path.endsWith(`/issues/${n}`) && !isProbe(r);
const labelWritesOn = (n: number) => (r: RecordedRequest) => r.method === 'PUT' && r.path.endsWith(`/issues/${n}`);

async function projectionEvents(runId: string): Promise<string[]> {
  const { rows } = await setup.db.query<{ text: string }>('SELECT text FROM run_events WHERE run_id = $1 AND kind = $2 ORDER BY seq', [runId, LABEL_PROJECTION_EVENT_KIND]);
  return rows.map((r) => r.text);
}

/** The delays announced by the failure events, in seconds. */
function announcedDelays(events: string[]): number[] {
  return events.flatMap((text) => {
    const match = /next try in (\d+(?:\.\d+)?) s/.exec(text);
    return match ? [Number(match[1])] : [];
  });
}

describe('a tracker that stays down', () => {
  it('is retried after the announced delays, attempt after attempt, and the label is given up to the stale round only after the last', async () => {
    const base = 400;
    const probeMs = 250;
    app = await boot({
      maxAttempts: 6, retryBaseMs: base, maxRetryDelayMs: 60_000, staleRetryMs: 10 * 60_000, recoveryProbeMs: probeMs,
      http: { maxAttempts: 1, timeoutMs: 2_000 },
    });
    gl.add(601, []);
    trackers.gitlab.setDown('unavailable');
    const t0 = Date.now();
    const runId = await app.claim(gl.key(601));
    await eventually(() => (app!.projection.staleTickets().some((t) => t.startsWith('billing/601')) ? true : undefined), 45_000, 'the stale-labels set');
    const events = await eventually(async () => {
      const all = await projectionEvents(runId);
      return all.some((t) => /gave up after 6 attempt/.test(t)) ? all : undefined;
    }, 5_000, 'the give-up event');

    const announced = announcedDelays(events);
    const attempts = trackers.gitlab.requests.filter(attemptsOn(601)).map((r) => r.at);
    expect(announced).toHaveLength(5);
    expect(attempts).toHaveLength(6);
    for (let i = 0; i < announced.length; i++) {
      // The delay announced is the back-off (doubling from the base, ±20 % jitter) …
      expect(announced[i]! * 1000).toBeGreaterThanOrEqual(0.8 * base * 2 ** i - 50);
      expect(announced[i]! * 1000).toBeLessThanOrEqual(1.2 * base * 2 ** i + 50);
      // … and the tracker saw the next attempt no sooner.
      expect(attempts[i + 1]! - attempts[i]!).toBeGreaterThanOrEqual(announced[i]! * 1000 - ROUNDING_MS);
    }
    // Meanwhile the host was probed, one read per interval at most, and no failed probe brought a retry forward.
    const probes = trackers.gitlab.requests.filter(isProbe);
    expect(probes.length).toBeGreaterThan(0);
    expect(probes.length).toBeLessThanOrEqual(Math.ceil((Date.now() - t0) / probeMs) + 1);
  }, 60_000);
});

describe('a tracker that answers again', () => {
  it.each([
    ['waiting out its back-off', 611, { maxAttempts: 6, retryBaseMs: 30_000, maxRetryDelayMs: 60_000 }, /next try in/],
    ['in the stale-labels set', 612, { maxAttempts: 1 }, /kept in the stale-labels set/],
  ] as const)('gets a label %s written within 10 s, not after the retry announced', async (_what, n, options, failedEvent) => {
    // The probe interval is the production default; the stale round is a minute away.
    app = await boot({ ...options, staleRetryMs: 60_000 });
    gl.add(n, []);
    trackers.gitlab.setDown('unavailable');
    const runId = await app.claim(gl.key(n));
    const events = await eventually(async () => {
      const all = await projectionEvents(runId);
      return all.some((t) => failedEvent.test(t)) ? all : undefined;
    }, 10_000, 'the failed attempt');
    // The next try announced is far beyond the bound: only noticing the recovery meets it.
    for (const delay of announcedDelays(events)) expect(delay).toBeGreaterThan(20);

    trackers.gitlab.setDown(null);
    const back = Date.now();
    await eventually(() => (lifecycleLabels(gl.labels(n)).join() === 'service:enqueued' ? true : undefined), 12_000, 'the label');
    const written = trackers.gitlab.requests.find(labelWritesOn(n));
    expect(written!.at - back).toBeLessThanOrEqual(10_000);
    await eventually(() => (app!.projection.pendingTickets().length === 0 ? true : undefined), 5_000, 'nothing pending');
  }, 60_000);

  it('is noticed by any request to it that succeeds: the labels waiting for it are retried then', async () => {
    // Probes a minute apart and a back-off of half a minute: only the other ticket's success can bring them forward.
    app = await boot({ maxAttempts: 6, retryBaseMs: 30_000, maxRetryDelayMs: 60_000, staleRetryMs: 60_000, recoveryProbeMs: 60_000 });
    for (const n of [631, 632, 633]) gl.add(n, []);
    trackers.gitlab.setDown('unavailable');
    const waiting = [await app.claim(gl.key(631)), await app.claim(gl.key(632))];
    for (const runId of waiting) {
      await eventually(async () => ((await projectionEvents(runId)).some((t) => /next try in/.test(t)) ? true : undefined), 10_000, 'a failed attempt');
    }
    trackers.gitlab.setDown(null);
    await app.claim(gl.key(633));
    await eventually(() => ([631, 632, 633].every((n) => lifecycleLabels(gl.labels(n)).join() === 'service:enqueued') ? true : undefined), 10_000, 'all three labels');
    expect(trackers.gitlab.requests.filter(isProbe)).toEqual([]);
  }, 60_000);

  it('is not probed while it holds writes for the wait it asked for (429 Retry-After)', async () => {
    app = await boot({
      maxAttempts: 6, retryBaseMs: 30_000, maxRetryDelayMs: 60_000, staleRetryMs: 60_000, recoveryProbeMs: 200,
      http: { maxAttempts: 1, timeoutMs: 2_000 },
    });
    gl.add(621, []);
    trackers.gitlab.failNext(1, { status: 429, retryAfterSeconds: 3, match: attemptsOn(621) });
    await app.claim(gl.key(621));
    await eventually(() => (lifecycleLabels(gl.labels(621)).join() === 'service:enqueued' ? true : undefined), 12_000, 'the label');
    const limited = trackers.gitlab.requests.find(attemptsOn(621))!;
    const probes = trackers.gitlab.requests.filter(isProbe);
    expect(probes.length).toBeGreaterThan(0);
    // Timers only fire late, so these lower bounds hold on a loaded machine.
    expect(probes[0]!.at - limited.at).toBeGreaterThanOrEqual(3_000 - ROUNDING_MS);
    expect(trackers.gitlab.requests.find(labelWritesOn(621))!.at - limited.at).toBeGreaterThanOrEqual(3_000 - ROUNDING_MS);
  }, 60_000);
});
