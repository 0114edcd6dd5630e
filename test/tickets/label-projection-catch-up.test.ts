import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TicketState } from '../../src/database/entities/ticket.entity.js';
import { Platform } from '../../src/platforms/platform.js';
import { carriesRunMarker, TicketCommentKind } from '../../src/tickets/label-projection/failure-comment.js';
import { ProjectionCatchUp } from '../../src/tickets/label-projection/projection-catch-up.js';
import type { RecordedRequest } from '../stand-ins/stand-in-server.js';
import { ProjectionApp } from './support/projection-app.js';
import { type TrackerCase, lifecycleLabels, trackerCases } from './support/tracker-cases.js';
import { type TicketTestSetup, createTicketTestSetup, eventually, sleep } from './support/ticket-test-setup.js';
import { type Trackers, startTrackers, stopTrackers, trackerProjects } from './support/trackers.js';

/**
 * Pending projection work lives in memory: after a restart the catch-up makes the tracker match
 * the database with no new transition. (The case a review reproduced: a run failed while GitHub
 * was down, the app restarted, GitHub came back → no comment, label stuck at in-progress.)
 */
let trackers: Trackers;
let setup: TicketTestSetup;
let gh: TrackerCase;

beforeAll(async () => {
  trackers = await startTrackers();
  setup = await createTicketTestSetup(trackerProjects(trackers));
  gh = trackerCases(trackers).find((c) => c.platform === Platform.GitHub)!;
});

afterAll(async () => {
  await stopTrackers(trackers);
  await setup?.cleanup();
});

async function settled(app: ProjectionApp): Promise<void> {
  await eventually(async () => {
    await app.projection.idle();
    return app.projection.pendingTickets().length === 0 ? true : undefined;
  }, 15_000, 'nothing pending');
  await sleep(200);
}

const on = (n: number) => (r: RecordedRequest) => new RegExp(`/issues/${n}(/|$)`).test(r.path);
const writesTo = (n: number) => trackers.github.requests.filter((r) => on(n)(r) && r.method !== 'GET');
const commentPosts = (n: number) => trackers.github.requests.filter((r) => r.method === 'POST' && r.path.endsWith(`/issues/${n}/comments`));

async function commentRow(runId: string): Promise<{ state: string } | undefined> {
  return (await setup.db.query('SELECT state FROM ticket_comments WHERE run_id = $1 AND kind = $2', [runId, TicketCommentKind.Failure])).rows[0];
}

describe('catch-up after a start', () => {
  it('writes what a stopped app could not (failure comment exactly once, failed label, done status) and leaves correct tickets alone', async () => {
    for (const n of [801, 802, 803, 804]) gh.add(n, []);
    let failedRun: string;
    const first = await ProjectionApp.boot(setup.env);
    try {
      // 803 (failed) and 804 (done) are projected completely while GitHub is up.
      const r803 = await first.start(gh.key(803));
      await first.finish(r803, 'exit 3');
      const r804 = await first.start(gh.key(804));
      await first.finish(r804);
      // 801 and 802 get their in-progress label, then GitHub goes down before they end.
      failedRun = await first.start(gh.key(801));
      const doneRun = await first.start(gh.key(802));
      await settled(first);
      trackers.github.setDown('unavailable');
      await first.finish(failedRun, 'compile error: boom');
      await first.finish(doneRun);
      await eventually(async () => ((await commentRow(failedRun)) ? true : undefined), 10_000, 'a comment attempt');
      await first.projection.idle();
    } finally {
      await first.close();
    }
    // What the review saw: the database says failed / done, the tracker does not, no comment.
    const states = (await setup.db.query(`SELECT ticket, state FROM tickets WHERE ticket IN ('801', '802') ORDER BY ticket`)).rows;
    expect(states).toEqual([{ ticket: '801', state: TicketState.Failed }, { ticket: '802', state: TicketState.Done }]);
    expect(lifecycleLabels(gh.labels(801))).toEqual(['service:in-progress']);
    expect(lifecycleLabels(gh.labels(802))).toEqual(['service:in-progress']);
    expect(gh.status(802)).toBeNull();
    expect(gh.comments(801)).toEqual([]);
    expect(await commentRow(failedRun!)).toEqual({ state: 'posting' });

    trackers.github.setDown(null);
    trackers.github.clearRequests();
    const second = await ProjectionApp.boot(setup.env);
    try {
      expect(await second.app.get(ProjectionCatchUp).ran).toEqual({ tickets: 4, comments: 1 });
      await eventually(() => (lifecycleLabels(gh.labels(801)).join() === 'service:failed' && gh.comments(801).length > 0
        && lifecycleLabels(gh.labels(802)).join() === 'service:done' && gh.status(802) === 'done' ? true : undefined), 15_000, 'caught up');
      await settled(second);
    } finally {
      await second.close();
    }
    expect(gh.comments(801)).toHaveLength(1);
    expect(carriesRunMarker(gh.comments(801)[0]!, failedRun!, TicketCommentKind.Failure)).toBe(true);
    expect(gh.comments(801)[0]).toContain('compile error: boom');
    expect(commentPosts(801)).toHaveLength(1);
    expect(await commentRow(failedRun!)).toEqual({ state: 'posted' });
    // Already correct: read once, never written (label, status or comment).
    for (const n of [803, 804]) {
      expect(writesTo(n)).toEqual([]);
      expect(trackers.github.requests.some(on(n))).toBe(true);
    }
    expect(gh.comments(803)).toHaveLength(1);
    expect(gh.status(804)).toBe('done');

    // Another start finds nothing left to post and writes nothing at all.
    trackers.github.clearRequests();
    const third = await ProjectionApp.boot(setup.env);
    try {
      expect(await third.app.get(ProjectionCatchUp).ran).toEqual({ tickets: 4, comments: 0 });
      await settled(third);
    } finally {
      await third.close();
    }
    expect(trackers.github.requests.filter((r) => r.method !== 'GET')).toEqual([]);
    expect(gh.comments(801)).toHaveLength(1);
  });
});
