import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import { LABEL_PROJECTION_EVENT_KIND } from '../../src/tickets/label-projection/projection-events.recorder.js';
import type { RecordedRequest } from '../stand-ins/stand-in-server.js';
import { ProjectionApp } from './support/projection-app.js';
import { type TrackerCase, trackerCases } from './support/tracker-cases.js';
import { type TicketTestSetup, createTicketTestSetup, eventually } from './support/ticket-test-setup.js';
import { type Trackers, startTrackers, stopTrackers, trackerProjects } from './support/trackers.js';

/**
 * Retries of a label while its tracker is down, timed by what the stand-in tracker received:
 * they follow the back-off the projection announces ("next try in … s").
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
});

afterAll(async () => {
  await stopTrackers(trackers);
  await setup?.cleanup();
});

/** The projection's requests for the issue (one GET per attempt with a single HTTP try). */
const readsOf = (n: number) => (r: RecordedRequest) => r.method === 'GET' && r.path.endsWith(`/issues/${n}`);

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
    app = await ProjectionApp.boot(setup.env, {
      maxAttempts: 6, retryBaseMs: base, maxRetryDelayMs: 60_000, staleRetryMs: 10 * 60_000,
      http: { maxAttempts: 1, timeoutMs: 2_000 },
    });
    gl.add(601, []);
    trackers.gitlab.setDown('unavailable');
    const runId = await app.claim(gl.key(601));
    await eventually(() => (app!.projection.staleTickets().some((t) => t.startsWith('billing/601')) ? true : undefined), 45_000, 'the stale-labels set');
    const events = await eventually(async () => {
      const all = await projectionEvents(runId);
      return all.some((t) => /gave up after 6 attempt/.test(t)) ? all : undefined;
    }, 5_000, 'the give-up event');

    const announced = announcedDelays(events);
    const attempts = trackers.gitlab.requests.filter(readsOf(601)).map((r) => r.at);
    expect(announced).toHaveLength(5);
    expect(attempts).toHaveLength(6);
    for (let i = 0; i < announced.length; i++) {
      // The delay announced is the back-off (doubling from the base, ±20 % jitter) …
      expect(announced[i]! * 1000).toBeGreaterThanOrEqual(0.8 * base * 2 ** i - 50);
      expect(announced[i]! * 1000).toBeLessThanOrEqual(1.2 * base * 2 ** i + 50);
      // … and the tracker saw the next attempt no sooner.
      expect(attempts[i + 1]! - attempts[i]!).toBeGreaterThanOrEqual(announced[i]! * 1000 - ROUNDING_MS);
    }
  }, 60_000);
});
