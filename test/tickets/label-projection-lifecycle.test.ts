import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TicketState } from '../../src/database/entities/ticket.entity.js';
import { Platform } from '../../src/platforms/platform.js';
import { carriesServiceMarker } from '../../src/platforms/service-marker.js';
import { carriesRunMarker, TicketCommentKind } from '../../src/tickets/label-projection/failure-comment.js';
import type { ProjectionApp } from './support/projection-app.js';
import { type ProjectionBench, startProjectionBench } from './support/projection-bench.js';
import { lifecycleLabels, type TrackerCase } from './support/tracker-cases.js';
import { eventually, sleep, type TicketTestSetup } from './support/ticket-test-setup.js';
import type { Trackers } from './support/trackers.js';

/**
 * A whole ticket life on each of the four trackers, driven through the real lifecycle service
 * (claim → dequeue → succeed | fail) on the real database and store, projected onto the real
 * stand-in servers.
 */
let bench: ProjectionBench;
let trackers: Trackers;
let setup: TicketTestSetup;
let app: ProjectionApp;
let cases: TrackerCase[];

beforeAll(async () => {
  bench = await startProjectionBench();
  ({ trackers, setup, app, cases } = bench);
});

afterAll(async () => {
  await bench?.stop();
});

const FOREIGN = ['bug', 'customer-x'];

/** The label writes went out the way the spec's atomicity table says for the platform. */
function assertAtomicityMechanism(c: TrackerCase): void {
  switch (c.platform) {
    case Platform.GitHub: {
      const patches = trackers.github.requests.filter((r) => r.method === 'PATCH' && r.path.endsWith('/issues/101'));
      expect(patches.length).toBeGreaterThan(0);
      for (const p of patches) {
        expect(p.headers['if-match']).toMatch(/^W\/"/);
        expect((p.body as { labels: string[] }).labels).toEqual(expect.arrayContaining(FOREIGN));
      }
      break;
    }
    case Platform.AzureDevOps: {
      const patches = trackers.ado.requests.filter((r) => r.method === 'PATCH' && r.path.endsWith('/workitems/101'));
      const tagWrites = patches.filter((p) => (p.body as { path: string }[]).some((op) => op.path === '/fields/System.Tags'));
      expect(tagWrites.length).toBeGreaterThan(0);
      for (const p of tagWrites) {
        const ops = p.body as { op: string; path: string }[];
        expect(ops[0]).toMatchObject({ op: 'test', path: '/rev' });
        expect(ops[1]).toMatchObject({ op: 'replace', path: '/fields/System.Tags' });
      }
      break;
    }
    case Platform.GitLab: {
      const puts = trackers.gitlab.requests.filter((r) => r.method === 'PUT' && r.path.endsWith('/issues/101'));
      expect(puts.length).toBeGreaterThan(0);
      for (const p of puts) {
        const body = p.body as Record<string, string>;
        expect(body['labels']).toBeUndefined();
        for (const label of [body['add_labels'], body['remove_labels']].filter(Boolean).flatMap((l) => (l as string).split(','))) {
          expect(label.startsWith('service:') || label === 'done' || label === 'ready-for-agent').toBe(true);
        }
      }
      break;
    }
    case Platform.Jira: {
      const puts = trackers.jira.requests.filter((r) => r.method === 'PUT' && r.path.endsWith('/issue/BILL-101'));
      expect(puts.length).toBeGreaterThan(0);
      for (const p of puts) {
        const ops = (p.body as { update: { labels: Record<string, string>[] } }).update.labels;
        for (const op of ops) expect(Object.values(op)[0]?.startsWith('service:')).toBe(true);
      }
      break;
    }
  }
}

async function stateOf(c: TrackerCase, n: number): Promise<string | undefined> {
  return (await app.lifecycle.find(c.key(n)))?.state;
}

describe.each([0, 1, 2, 3].map((index) => ({ index, name: ['platform A (GitHub)', 'platform B (GitLab)', 'platform C (Azure DevOps)', 'platform D (Jira)'][index] })))('$name', ({ index }) => {
  it('Pending → Enqueued → InProgress → Done: one lifecycle label at a time, foreign labels kept, done status set', async () => {
    const c = cases[index] as TrackerCase;
    c.add(101, FOREIGN);
    const runId = await app.start(c.key(101));
    await eventually(() => (lifecycleLabels(c.labels(101)).join() === 'service:in-progress' ? true : undefined), 10_000, `${c.name}: in-progress label`);
    expect(c.labels(101).slice(0, 2)).toEqual(FOREIGN);

    await app.finish(runId);
    await eventually(() => (lifecycleLabels(c.labels(101)).join() === 'service:done' && c.status(101) === c.doneStatus ? true : undefined),
      10_000, `${c.name}: done label and status`);
    await app.projection.idle();
    expect(c.labels(101).filter((l) => FOREIGN.includes(l))).toEqual(FOREIGN);
    expect(c.comments(101)).toEqual([]);
    expect(await stateOf(c, 101)).toBe(TicketState.Done);
    expect(app.projection.pendingTickets()).toEqual([]);
    assertAtomicityMechanism(c);
  });

  it('Pending → Failed: failed label and exactly one failure comment with the markers and the error', async () => {
    const c = cases[index] as TrackerCase;
    c.add(102, FOREIGN);
    const runId = await app.start(c.key(102));
    await app.finish(runId, 'step "npm test" failed: exit code 3');
    await eventually(() => (lifecycleLabels(c.labels(102)).join() === 'service:failed' && c.comments(102).length > 0 ? true : undefined),
      10_000, `${c.name}: failed label and comment`);
    await app.projection.idle();
    await sleep(300);
    const comments = c.comments(102);
    expect(comments).toHaveLength(1);
    expect(carriesServiceMarker(comments[0] as string)).toBe(true);
    expect(carriesRunMarker(comments[0] as string, runId, TicketCommentKind.Failure)).toBe(true);
    expect(comments[0]).toContain('exit code 3');
    expect(c.labels(102).filter((l) => FOREIGN.includes(l))).toEqual(FOREIGN);
    expect(c.status(102)).not.toBe(c.doneStatus);
    expect(await stateOf(c, 102)).toBe(TicketState.Failed);
    const recorded = await setup.db.query('SELECT state, comment_id FROM ticket_comments WHERE run_id = $1', [runId]);
    expect(recorded.rows).toEqual([{ state: 'posted', comment_id: expect.any(String) }]);
  });
});
