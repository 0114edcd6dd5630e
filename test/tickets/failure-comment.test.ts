import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import { carriesRunMarker, runMarker, TicketCommentKind } from '../../src/tickets/label-projection/failure-comment.js';
import { LifecycleTrigger } from '../../src/tickets/lifecycle.js';
import type { RecordedRequest } from '../stand-ins/stand-in-server.js';
import { ProjectionApp } from './support/projection-app.js';
import { type ProjectionBench, startProjectionBench } from './support/projection-bench.js';
import { lifecycleLabels, type TrackerCase } from './support/tracker-cases.js';
import { eventually, sleep, type TicketTestSetup } from './support/ticket-test-setup.js';
import { CREDENTIALS, type Trackers } from './support/trackers.js';

/** The failure comment: exactly once per failed run, whatever is repeated, and never a secret. */
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

const commentPost = (suffix: string) => (r: RecordedRequest) => r.method === 'POST' && r.path.endsWith(suffix);

async function settled(): Promise<void> {
  await app.projection.idle();
  await eventually(() => (app.projection.pendingTickets().length === 0 ? true : undefined), 10_000, 'nothing pending');
  await sleep(200);
}

describe('exactly once per failed run', () => {
  it('when the transition listener hears the failure twice and the transition is retried', async () => {
    const gh = caseOf(Platform.GitHub);
    gh.add(601, []);
    const runId = await app.start(gh.key(601));
    const failed = await app.lifecycle.transition(runId, LifecycleTrigger.Fail, 'exit 1');
    expect(failed).not.toBeNull();
    app.projection.onTransition(failed!); // the listener fires a second time for the same transition
    expect(await app.lifecycle.transition(runId, LifecycleTrigger.Fail, 'exit 1')).toBeNull(); // a retried transition is refused
    await eventually(() => (gh.comments(601).length > 0 ? true : undefined), 10_000, 'comment');
    await settled();
    app.projection.onTransition(failed!); // and once more after the comment is posted
    await settled();
    expect(gh.comments(601)).toHaveLength(1);
    expect(trackers.github.requests.filter(commentPost('/issues/601/comments'))).toHaveLength(1);
  });

  it('when the post fails and is retried in the background', async () => {
    const gl = caseOf(Platform.GitLab);
    gl.add(602, []);
    trackers.gitlab.failNext(3, { status: 502, match: commentPost('/issues/602/notes') });
    const runId = await app.start(gl.key(602));
    await app.finish(runId, 'compile error');
    await eventually(() => (gl.comments(602).length > 0 ? true : undefined), 10_000, 'comment after retries');
    await settled();
    expect(gl.comments(602)).toHaveLength(1);
    expect(trackers.gitlab.requests.filter(commentPost('/issues/602/notes')).length).toBeGreaterThanOrEqual(2);
    const events = (await setup.db.query(`SELECT text FROM run_events WHERE run_id = $1 AND kind = 'label-projection'`, [runId])).rows as { text: string }[];
    expect(events.some((e) => /failure comment on billing\/602 .* not written: .*502/.test(e.text))).toBe(true);
  });

  it('when an earlier post reached the tracker but its answer was lost (the marker is found, not posted again)', async () => {
    const gh = caseOf(Platform.GitHub);
    const issue = trackers.github.addIssue(603, []);
    const runId = await app.start(gh.key(603));
    issue.comments.push({ id: 4242, body: `earlier attempt\n${runMarker(runId, TicketCommentKind.Failure)}`, login: 'pipeline-bot' });
    await app.finish(runId, 'exit 2');
    await eventually(() => (lifecycleLabels(gh.labels(603)).join() === 'service:failed' ? true : undefined), 10_000, 'failed label');
    await settled();
    expect(gh.comments(603)).toHaveLength(1);
    expect(trackers.github.requests.filter(commentPost('/issues/603/comments'))).toHaveLength(0);
    const row = await setup.db.query('SELECT state, comment_id FROM ticket_comments WHERE run_id = $1', [runId]);
    expect(row.rows).toEqual([{ state: 'posted', comment_id: '4242' }]);
  });

  it('when a second replica projects the same failure at the same time', async () => {
    const jira = caseOf(Platform.Jira);
    jira.add(604, []);
    const second = await ProjectionApp.boot(setup.env);
    try {
      const runId = await app.start(jira.key(604));
      const failed = await app.lifecycle.transition(runId, LifecycleTrigger.Fail, 'exit 4');
      second.projection.onTransition(failed!);
      await eventually(() => (jira.comments(604).length > 0 ? true : undefined), 10_000, 'comment');
      await second.projection.idle();
      await settled();
      expect(jira.comments(604)).toHaveLength(1);
      expect(carriesRunMarker(jira.comments(604)[0] as string, runId, TicketCommentKind.Failure)).toBe(true);
    } finally {
      await second.close();
    }
  });
});

describe('the comment text', () => {
  it.each([Platform.GitHub, Platform.AzureDevOps, Platform.Jira])('%s: never carries a configured secret', async (platform) => {
    const c = caseOf(platform);
    const n = 700 + Object.values(Platform).indexOf(platform);
    c.add(n, []);
    const runId = await app.start(c.key(n));
    const error = [
      `git push https://x-access-token:${CREDENTIALS.github}@github.com/acme/shop-web failed`,
      `curl -H "PRIVATE-TOKEN: ${CREDENTIALS.gitlab}" → 401`,
      `basic ${CREDENTIALS.jiraUser}:${CREDENTIALS.jiraToken} / token ${CREDENTIALS.jiraToken}`,
      `pat=${CREDENTIALS.adoPat}; encoded ${encodeURIComponent(CREDENTIALS.github)}`,
    ].join('\n');
    await app.finish(runId, error);
    await eventually(() => (c.comments(n).length > 0 ? true : undefined), 10_000, 'comment');
    const body = c.comments(n)[0] as string;
    for (const secret of [CREDENTIALS.github, CREDENTIALS.gitlab, CREDENTIALS.jiraToken, CREDENTIALS.adoPat]) expect(body).not.toContain(secret);
    expect(body).toContain('***');
    expect(body).toContain('acme/shop-web failed');
    // The stored run error stays whole (the database is not the tracker).
    const run = await setup.db.query('SELECT error FROM runs WHERE id = $1', [runId]);
    expect(run.rows[0].error).toContain(CREDENTIALS.github);
  });

  it('cuts a very long error to about 4,000 characters with a note', async () => {
    const gh = caseOf(Platform.GitHub);
    gh.add(710, []);
    const runId = await app.start(gh.key(710));
    await app.finish(runId, `FIRST LINE\n${'log line\n'.repeat(2_000)}LAST LINE`);
    await eventually(() => (gh.comments(710).length > 0 ? true : undefined), 10_000, 'comment');
    const body = gh.comments(710)[0] as string;
    expect(body.length).toBeLessThan(4_600);
    expect(body).toContain('FIRST LINE');
    expect(body).toContain('LAST LINE');
    expect(body).toMatch(/characters in the middle were left out/);
  });
});

describe('a run deleted before its comment went out (dashboard DELETE)', () => {
  it('drops the comment instead of retrying it for days', async () => {
    const gh = caseOf(Platform.GitHub);
    gh.add(620, []);
    const post = commentPost('/issues/620/comments');
    trackers.github.failNext(1_000, { status: 502, match: post }); // the tracker refuses it for as long as the test runs
    const runId = await app.start(gh.key(620));
    await app.finish(runId, 'exit 9');
    await eventually(() => (trackers.github.requests.some(post) ? true : undefined), 10_000, 'a first attempt');
    await setup.db.query('DELETE FROM runs WHERE id = $1', [runId]);
    // Settles (nothing pending, nothing in the stale set) without a post that could succeed.
    await eventually(() => (app.projection.pendingTickets().length === 0 ? true : undefined), 15_000, 'the projection to let go of the comment');
    const attempts = trackers.github.requests.filter(post).length;
    await sleep(1_500);
    expect(trackers.github.requests.filter(post)).toHaveLength(attempts);
    expect(gh.comments(620)).toEqual([]);
  });
});
