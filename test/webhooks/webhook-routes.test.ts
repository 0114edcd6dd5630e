import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LifecycleTrigger } from '../../src/tickets/lifecycle.js';
import { TicketLifecycleService } from '../../src/tickets/ticket-lifecycle.service.js';
import { githubExample, loadFixture } from '../fixtures/payload-fixtures.js';
import {
  HELLO_WORLD, NO_PIPELINE_REPO, TEST_PIPELINES, TEST_PROJECTS, UNKNOWN_REPO, type Wire,
  adoCommented, adoUpdated, adoWire, githubCommented, githubLabeled, githubWire, gitlabIssueHook, gitlabNoteHook, gitlabWire,
  jiraCommented, jiraUpdated, jiraWire,
} from './support/deliveries.js';
import {
  SECRETS, type WebhookBench, basicAuth, bootServer, createWebhookBench, githubSignature, jobsFor, runsOf, ticketRow, triggerLogRows, type WebhookReply, sendWire,
} from './support/webhook-harness.js';

/**
 * Every webhook route of the real server (AppModule on Fastify, `createServer`) against the
 * machine's PostgreSQL and Redis, with the platforms' documented example payloads.
 */
let bench: WebhookBench;
let app: NestFastifyApplication;

const TEXT = 'text/plain; charset=utf-8';


const send = (wire: Wire): Promise<WebhookReply> => sendWire(app, wire);

/** The claim's whole effect: ticket Enqueued with one live (queued) run, and that run's request on the queue. */
async function expectClaimed(platform: string, project: string, ticket: string, pipeline: string): Promise<string> {
  const row = await ticketRow(bench.db, platform, project, ticket);
  expect(row).toMatchObject({ state: 'enqueued', pipeline });
  const runs = await runsOf(bench.db, platform, project, ticket);
  expect(runs).toHaveLength(1);
  expect(runs[0]).toMatchObject({ id: row?.run_id, state: 'queued', pipeline });
  const runId = runs[0]!.id;
  expect(await jobsFor(bench.queue, runId)).toBe(1);
  const job = await bench.queue.getJob(runId);
  expect(job?.data).toEqual({ runId, platform, project, ticket, pipeline });
  return runId;
}

async function expectNothingClaimed(platform: string, project: string, ticket: string): Promise<void> {
  expect(await ticketRow(bench.db, platform, project, ticket)).toBeNull();
  expect(await runsOf(bench.db, platform, project, ticket)).toHaveLength(0);
}

beforeAll(async () => {
  bench = await createWebhookBench({ projects: TEST_PROJECTS, pipelines: TEST_PIPELINES });
  app = await bootServer(bench.environment());
});

afterAll(async () => {
  await app?.close();
  await bench?.cleanup();
});

describe('platform A (GitHub)', () => {
  it('claims a labeled issue on /webhook/platform-a: 202, exact text body, ticket Enqueued, one run, one queued request, trigger log', async () => {
    const delivery = randomUUID();
    const answer = await send(githubWire('issues', githubLabeled(101), { delivery }));
    expect(answer).toEqual({ status: 202, body: 'Accepted: 101 in gh-main', contentType: TEXT });
    await expectClaimed('platform-a', 'gh-main', '101', 'code');
    const [log] = await triggerLogRows(bench.db, { delivery_id: delivery });
    expect(log).toMatchObject({ platform: 'platform-a', event: 'issues', project: 'gh-main', ticket: '101', outcome: 'Claimed', status_code: 202 });
  });

  it.each([
    ['X-GitHub-Event', 102],
    ['X-PlatformA-Event', 103],
  ] as const)('POST /webhook detects GitHub by %s', async (eventHeader, number) => {
    const answer = await send(githubWire('issues', githubLabeled(number), { route: '/webhook', eventHeader }));
    expect(answer).toEqual({ status: 202, body: `Accepted: ${number} in gh-main`, contentType: TEXT });
    await expectClaimed('platform-a', 'gh-main', String(number), 'code');
  });

  it('accepts X-PlatformA-Event on the explicit route too', async () => {
    const answer = await send(githubWire('issues', githubLabeled(104), { eventHeader: 'X-PlatformA-Event' }));
    expect(answer).toEqual({ status: 202, body: 'Accepted: 104 in gh-main', contentType: TEXT });
  });

  it('a second trigger for a claimed ticket answers 200 Already claimed without a second run or request', async () => {
    expect((await send(githubWire('issues', githubLabeled(110), { delivery: randomUUID() }))).status).toBe(202);
    const runId = await expectClaimed('platform-a', 'gh-main', '110', 'code');
    const again = await send(githubWire('issues', githubLabeled(110), { delivery: randomUUID(), route: '/webhook' }));
    expect(again).toEqual({ status: 200, body: 'Already claimed: 110', contentType: TEXT });
    expect(await expectClaimed('platform-a', 'gh-main', '110', 'code')).toBe(runId);
    await triggerLogRows(bench.db, { ticket: '110', outcome: 'AlreadyClaimed', status_code: 200 });
  });

  it('a redelivery (same X-GitHub-Delivery, same bytes) of a claimed trigger answers 200 Already claimed without the work being done again', async () => {
    const delivery = randomUUID();
    const wire = githubWire('issues', githubLabeled(111), { delivery });
    const first = await send(wire);
    expect(first).toEqual({ status: 202, body: 'Accepted: 111 in gh-main', contentType: TEXT });
    const runId = await expectClaimed('platform-a', 'gh-main', '111', 'code');
    expect(await send(wire)).toEqual({ status: 200, body: 'Already claimed: 111', contentType: TEXT });
    expect(await send({ ...wire, url: '/webhook' })).toEqual({ status: 200, body: 'Already claimed: 111', contentType: TEXT });
    expect(await expectClaimed('platform-a', 'gh-main', '111', 'code')).toBe(runId);
    const logs = await triggerLogRows(bench.db, { delivery_id: delivery }, 3);
    expect(logs.map((l) => [l.outcome, l.status_code])).toEqual([['Claimed', 202], ['duplicate', 200], ['duplicate', 200]]);
  });

  it('a redelivery after the run has finished (ticket Done) does not re-run the ticket; a new delivery does', async () => {
    const wire = githubWire('issues', githubLabeled(112), { delivery: randomUUID() });
    expect((await send(wire)).status).toBe(202);
    const runId = await expectClaimed('platform-a', 'gh-main', '112', 'code');
    const lifecycle = app.get(TicketLifecycleService);
    expect(await lifecycle.transition(runId, LifecycleTrigger.Dequeue)).not.toBeNull();
    expect(await lifecycle.transition(runId, LifecycleTrigger.Succeed)).not.toBeNull();
    expect(await ticketRow(bench.db, 'platform-a', 'gh-main', '112')).toMatchObject({ state: 'done', run_id: runId });

    expect(await send(wire)).toEqual({ status: 200, body: 'Already claimed: 112', contentType: TEXT });
    expect(await runsOf(bench.db, 'platform-a', 'gh-main', '112')).toHaveLength(1);
    expect(await ticketRow(bench.db, 'platform-a', 'gh-main', '112')).toMatchObject({ state: 'done', run_id: runId });

    // Only the memory of that delivery holds it back: the same trigger delivered anew re-runs the ticket.
    const fresh = await send(githubWire('issues', githubLabeled(112), { delivery: randomUUID() }));
    expect(fresh).toEqual({ status: 202, body: 'Accepted: 112 in gh-main', contentType: TEXT });
    expect(await runsOf(bench.db, 'platform-a', 'gh-main', '112')).toHaveLength(2);
  });

  it('the same X-GitHub-Delivery with other bytes is another delivery: claimed for its own ticket', async () => {
    const delivery = randomUUID();
    expect(await send(githubWire('issues', githubLabeled(113), { delivery })))
      .toEqual({ status: 202, body: 'Accepted: 113 in gh-main', contentType: TEXT });
    expect(await send(githubWire('issues', githubLabeled(114), { delivery })))
      .toEqual({ status: 202, body: 'Accepted: 114 in gh-main', contentType: TEXT });
    await expectClaimed('platform-a', 'gh-main', '113', 'code');
    await expectClaimed('platform-a', 'gh-main', '114', 'code');
    const logs = await triggerLogRows(bench.db, { delivery_id: delivery }, 2);
    expect(logs.map((l) => [l.ticket, l.outcome])).toEqual([['113', 'Claimed'], ['114', 'Claimed']]);
  });

  it.each([
    ['missing', null],
    ['wrong secret', githubSignature('not-the-secret', JSON.stringify(githubLabeled(120)))],
    ['malformed', 'sha256=zz'],
    ['SHA-1 style', 'sha1=0123456789abcdef0123456789abcdef01234567'],
  ] as const)('refuses a %s X-Hub-Signature-256 with 401 on both routes, before anything is claimed', async (what, signature) => {
    const delivery = `unsigned-${what.replace(/\W/g, '-')}`;
    for (const route of ['/webhook', '/webhook/platform-a'] as const) {
      const answer = await send(githubWire('issues', githubLabeled(120), { route, signature, delivery }));
      expect(answer.status).toBe(401);
      expect(answer.contentType).toBe(TEXT);
    }
    await expectNothingClaimed('platform-a', 'gh-main', '120');
    const logged = await triggerLogRows(bench.db, { delivery_id: delivery, outcome: 'unauthorized', status_code: 401 }, 2);
    // Nothing but headers is taken from an unverified body: no project, no ticket.
    expect(logged.map((row) => [row.event, row.project, row.ticket])).toEqual([['issues', null, null], ['issues', null, null]]);
  });

  it('refuses a signature over other bytes than the ones sent (the HMAC is over the raw body)', async () => {
    const body = githubLabeled(121);
    const wire = githubWire('issues', body);
    const reformatted = { ...wire, payload: JSON.stringify(body, null, 2) }; // same JSON value, other bytes
    expect((await send(reformatted)).status).toBe(401);
    await expectNothingClaimed('platform-a', 'gh-main', '121');
    // The same value with the bytes it was signed over passes.
    expect((await send(wire)).status).toBe(202);
  });

  it('answers 200 Rejected: UnknownProject for a repository no project declares', async () => {
    const answer = await send(githubWire('issues', githubLabeled(130, { repoUrl: UNKNOWN_REPO })));
    expect(answer).toEqual({ status: 200, body: 'Rejected: UnknownProject', contentType: TEXT });
    const [log] = await triggerLogRows(bench.db, { ticket: '130', outcome: 'Rejected' });
    expect(log).toMatchObject({ project: null, reason: 'UnknownProject', status_code: 200 });
    const { rows } = await bench.db.query('SELECT count(*)::int AS n FROM tickets WHERE ticket = $1', ['130']);
    expect(rows[0]).toEqual({ n: 0 });
  });

  it('a redelivery of a rejected or filtered delivery gets its first answer, remembered (contract: "the first answer otherwise")', async () => {
    for (const [wire, body] of [
      [githubWire('issues', githubLabeled(134, { repoUrl: UNKNOWN_REPO }), { delivery: randomUUID() }), 'Rejected: UnknownProject'],
      [githubWire('issues', githubLabeled(135, { label: 'question' }), { delivery: randomUUID() }), null],
    ] as const) {
      const first = await send(wire);
      if (body !== null) expect(first.body).toBe(body);
      expect(first.status).toBe(200);
      expect(await send(wire)).toEqual(first);
      const delivery = wire.headers['X-GitHub-Delivery'];
      const logs = await triggerLogRows(bench.db, { delivery_id: delivery }, 2);
      expect(logs.map((l) => l.outcome)).toEqual([first.body.startsWith('Rejected') ? 'Rejected' : 'filtered', 'duplicate']);
    }
  });

  it('answers 200 Rejected: UnknownPipeline when the label maps to no known pipeline', async () => {
    const answer = await send(githubWire('issues', githubLabeled(131, { repoUrl: NO_PIPELINE_REPO })));
    expect(answer).toEqual({ status: 200, body: 'Rejected: UnknownPipeline', contentType: TEXT });
    await expectNothingClaimed('platform-a', 'gh-nopipe', '131');
  });

  it('answers 200 Rejected: PipelineNotLabelTriggered for a comment naming a pipeline no label maps', async () => {
    // The example's text is "You are totally right! …"; `right` is a command pipeline, not mapped.
    const answer = await send(githubWire('issue_comment', githubCommented(132)));
    expect(answer).toEqual({ status: 200, body: 'Rejected: PipelineNotLabelTriggered', contentType: TEXT });
    await expectNothingClaimed('platform-a', 'gh-main', '132');
  });

  it.each([
    ['issues', 'opened'],
    ['pull_request', 'labeled'],
    ['issues', 'unlabeled'],
    ['pull_request_review', 'submitted'],
  ])('filters %s %s: 200 Filtered, nothing claimed', async (event, action) => {
    const body = githubExample(event, action);
    const answer = await send(githubWire(event, body, { route: '/webhook' }));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatch(/^Filtered: .+/);
    expect(answer.contentType).toBe(TEXT);
    const { rows } = await bench.db.query('SELECT count(*)::int AS n FROM tickets WHERE platform = $1 AND ticket = $2', ['platform-a', '1']);
    expect(rows[0]).toEqual({ n: 0 });
  });

  it('filters a label that triggers nothing', async () => {
    const answer = await send(githubWire('issues', githubLabeled(133, { label: 'question' })));
    expect(answer).toMatchObject({ status: 200, contentType: TEXT });
    expect(answer.body).toMatch(/^Filtered: /);
    await expectNothingClaimed('platform-a', 'gh-main', '133');
  });

  it('never triggers on the service\'s own service: label', async () => {
    const answer = await send(githubWire('issues', githubLabeled(134, { label: 'service:enqueued' })));
    expect(answer).toMatchObject({ status: 200, contentType: TEXT });
    expect(answer.body).toMatch(/^Filtered: .*service:/);
    await expectNothingClaimed('platform-a', 'gh-main', '134');
    await triggerLogRows(bench.db, { ticket: '134', outcome: 'filtered' });
  });
});

describe('platform B (GitLab)', () => {
  it.each([
    ['/webhook/platform-b', 'gitlab', 201],
    ['/webhook/platform-b', 'platformb', 202],
    ['/webhook', 'gitlab', 203],
    ['/webhook', 'platformb', 204],
  ] as const)('claims an Issue Hook label change on %s with the %s header spelling', async (route, spelling, iid) => {
    const answer = await send(gitlabWire('Issue Hook', gitlabIssueHook(iid), { route, spelling }));
    expect(answer).toEqual({ status: 202, body: `Accepted: ${iid} in gl-main`, contentType: TEXT });
    await expectClaimed('platform-b', 'gl-main', String(iid), 'code');
  });

  it('claims on a Note Hook whose comment carries the keyword', async () => {
    const answer = await send(gitlabWire('Note Hook', gitlabNoteHook(205)));
    expect(answer).toEqual({ status: 202, body: 'Accepted: 205 in gl-main', contentType: TEXT });
    await expectClaimed('platform-b', 'gl-main', '205', 'code');
    const again = await send(gitlabWire('Issue Hook', gitlabIssueHook(205), { spelling: 'platformb' }));
    expect(again).toEqual({ status: 200, body: 'Already claimed: 205', contentType: TEXT });
  });

  it.each([
    ['missing (X-Gitlab-Token)', 'gitlab', null],
    ['wrong (X-Gitlab-Token)', 'gitlab', 'not-the-token'],
    ['missing (X-PlatformB-Token)', 'platformb', null],
    ['wrong (X-PlatformB-Token)', 'platformb', `${SECRETS.platformB}x`],
  ] as const)('refuses a %s token with 401 on both routes', async (_what, spelling, token) => {
    for (const route of ['/webhook', '/webhook/platform-b'] as const) {
      const answer = await send(gitlabWire('Issue Hook', gitlabIssueHook(210), { route, spelling, token }));
      expect(answer.status).toBe(401);
      expect(answer.contentType).toBe(TEXT);
    }
    await expectNothingClaimed('platform-b', 'gl-main', '210');
  });

  it('a redelivery (same Idempotency-Key, same bytes) answers Already claimed without a second claim', async () => {
    const idempotencyKey = randomUUID();
    const first = await send(gitlabWire('Issue Hook', gitlabIssueHook(211), { idempotencyKey }));
    expect(first).toEqual({ status: 202, body: 'Accepted: 211 in gl-main', contentType: TEXT });
    const runId = await expectClaimed('platform-b', 'gl-main', '211', 'code');
    expect(await send(gitlabWire('Issue Hook', gitlabIssueHook(211), { idempotencyKey, route: '/webhook' })))
      .toEqual({ status: 200, body: 'Already claimed: 211', contentType: TEXT });
    expect(await expectClaimed('platform-b', 'gl-main', '211', 'code')).toBe(runId);
    await triggerLogRows(bench.db, { delivery_id: idempotencyKey, outcome: 'duplicate' });
  });

  it('never triggers on the service\'s own service: label', async () => {
    const answer = await send(gitlabWire('Issue Hook', gitlabIssueHook(212, 'service:in-progress')));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatch(/^Filtered: .*service:/);
    await expectNothingClaimed('platform-b', 'gl-main', '212');
  });

  it('filters merge request events for now (200)', async () => {
    const answer = await send(gitlabWire('Merge Request Hook', loadFixture('gitlab', 'merge-request-hook'), { route: '/webhook' }));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatch(/^Filtered: /);
  });
});

describe('platform C (Azure DevOps)', () => {
  it('claims a work item moved to a trigger status on /webhook/platform-c', async () => {
    const answer = await send(adoWire(adoUpdated(301, randomUUID())));
    expect(answer).toEqual({ status: 202, body: 'Accepted: 301 in ado-main', contentType: TEXT });
    await expectClaimed('platform-c', 'ado-main', '301', 'code');
  });

  it('POST /webhook detects the service-hook envelope', async () => {
    const answer = await send(adoWire(adoUpdated(302, randomUUID()), { route: '/webhook' }));
    expect(answer).toEqual({ status: 202, body: 'Accepted: 302 in ado-main', contentType: TEXT });
    await expectClaimed('platform-c', 'ado-main', '302', 'code');
  });

  it('claims on workitem.commented carrying the keyword, then answers Already claimed', async () => {
    const answer = await send(adoWire(adoCommented(303, randomUUID())));
    expect(answer).toEqual({ status: 202, body: 'Accepted: 303 in ado-main', contentType: TEXT });
    await expectClaimed('platform-c', 'ado-main', '303', 'code');
    expect(await send(adoWire(adoUpdated(303, randomUUID()), { route: '/webhook' })))
      .toEqual({ status: 200, body: 'Already claimed: 303', contentType: TEXT });
  });

  it.each([
    ['missing', null],
    ['wrong password', basicAuth('service-hook', 'nope')],
    ['not Basic', `Bearer ${SECRETS.platformC}`],
  ] as const)('refuses a %s Authorization with 401 on both routes', async (_what, authorization) => {
    for (const route of ['/webhook', '/webhook/platform-c'] as const) {
      const answer = await send(adoWire(adoUpdated(310, randomUUID()), { route, authorization }));
      expect(answer.status).toBe(401);
    }
    await expectNothingClaimed('platform-c', 'ado-main', '310');
  });

  it('a redelivery (same notification id, same bytes) answers Already claimed without a second claim', async () => {
    const id = randomUUID();
    const first = await send(adoWire(adoUpdated(311, id)));
    expect(first).toEqual({ status: 202, body: 'Accepted: 311 in ado-main', contentType: TEXT });
    expect(await send(adoWire(adoUpdated(311, id)))).toEqual({ status: 200, body: 'Already claimed: 311', contentType: TEXT });
    expect(await runsOf(bench.db, 'platform-c', 'ado-main', '311')).toHaveLength(1);
  });

  it('a service-hook envelope id reused with another body is answered for its own ticket', async () => {
    const id = randomUUID();
    expect(await send(adoWire(adoUpdated(313, id)))).toEqual({ status: 202, body: 'Accepted: 313 in ado-main', contentType: TEXT });
    expect(await send(adoWire(adoUpdated(314, id)))).toEqual({ status: 202, body: 'Accepted: 314 in ado-main', contentType: TEXT });
    await expectClaimed('platform-c', 'ado-main', '313', 'code');
    await expectClaimed('platform-c', 'ado-main', '314', 'code');
  });

  it('review-vote subscriptions need the same credentials; pull request updates start nothing', async () => {
    const pr = loadFixture('azure-devops', 'git-pullrequest-updated');
    const vote = { 'X-Service-Change': 'review-vote' };
    expect((await send(adoWire(pr, { headers: vote, authorization: null }))).status).toBe(401);
    expect((await send(adoWire(pr, { headers: vote, authorization: basicAuth('x', 'wrong') }))).status).toBe(401);
    for (const headers of [vote, {}]) {
      const answer = await send(adoWire(pr, { headers }));
      expect(answer.status).toBe(200);
      expect(answer.body).toMatch(/^Filtered: /);
    }
  });

  it('filters a work item update that changes neither state nor tags', async () => {
    const body = adoUpdated(312, randomUUID());
    const fields = (body['resource'] as Record<string, Record<string, unknown>>)['fields']!;
    delete fields['System.State'];
    const answer = await send(adoWire(body));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatch(/^Filtered: /);
    await expectNothingClaimed('platform-c', 'ado-main', '312');
  });
});

describe('platform D (Jira)', () => {
  it('claims an issue moved to a trigger status, signed with the project secret', async () => {
    const identifier = randomUUID();
    const answer = await send(jiraWire(jiraUpdated('JRA-401', 'Ready for Agent'), { identifier }));
    expect(answer).toEqual({ status: 202, body: 'Accepted: JRA-401 in jira-main', contentType: TEXT });
    await expectClaimed('platform-d', 'jira-main', 'JRA-401', 'code');
    const [log] = await triggerLogRows(bench.db, { delivery_id: identifier });
    expect(log).toMatchObject({ platform: 'platform-d', event: 'issue_updated', project: 'jira-main', outcome: 'Claimed' });
  });

  it('claims on comment_created carrying the keyword, then answers Already claimed', async () => {
    const answer = await send(jiraWire(jiraCommented('JRA-402')));
    expect(answer).toEqual({ status: 202, body: 'Accepted: JRA-402 in jira-main', contentType: TEXT });
    await expectClaimed('platform-d', 'jira-main', 'JRA-402', 'code');
    expect(await send(jiraWire(jiraUpdated('JRA-402', 'Ready for Agent'))))
      .toEqual({ status: 200, body: 'Already claimed: JRA-402', contentType: TEXT });
  });

  it.each([
    ['missing', null],
    ['signed with another secret', 'other'],
    ['signed with the server-wide A secret', 'a'],
  ] as const)('refuses a %s X-Hub-Signature with 401 once the project carries a secret', async (_what, which) => {
    const body = jiraUpdated('JRA-410', 'Ready for Agent');
    const payload = JSON.stringify(body);
    const signature = which === null ? null : githubSignature(which === 'a' ? SECRETS.platformA : 'another-secret', payload);
    const answer = await send(jiraWire(body, { signature }));
    expect(answer.status).toBe(401);
    expect(answer.contentType).toBe(TEXT);
    await expectNothingClaimed('platform-d', 'jira-main', 'JRA-410');
  });

  it('refuses an unsigned delivery whose key names the secret project while fields.project names an open one', async () => {
    const body = jiraUpdated('JRA-413', 'Ready for Agent');
    (body['issue'] as Record<string, Record<string, unknown>>)['fields']!['project'] = { key: 'OPEN' };
    const answer = await send(jiraWire(body, { signature: null }));
    expect(answer.status).toBe(401);
    await expectNothingClaimed('platform-d', 'jira-main', 'JRA-413');
    await expectNothingClaimed('platform-d', 'jira-open', 'JRA-413');
  });

  it('refuses an unsigned delivery for a project with a secret even when it would start nothing (401, not Filtered)', async () => {
    const body = { ...jiraUpdated('JRA-414'), webhookEvent: 'jira:issue_deleted' };
    const answer = await send(jiraWire(body, { signature: null }));
    expect(answer).toEqual({ status: 401, body: 'Unauthorized: signature missing', contentType: TEXT });
  });

  it('does not verify deliveries for a project without a secret', async () => {
    const answer = await send(jiraWire(jiraUpdated('OPEN-7', 'Ready for Agent'), { signature: null }));
    expect(answer).toEqual({ status: 202, body: 'Accepted: OPEN-7 in jira-open', contentType: TEXT });
    await expectClaimed('platform-d', 'jira-open', 'OPEN-7', 'code');
  });

  it('filters the documented example as it is (summary and type changed): 200', async () => {
    const answer = await send(jiraWire(loadFixture('jira', 'issue-updated')));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatch(/^Filtered: /);
    await expectNothingClaimed('platform-d', 'jira-main', 'JRA-20002');
  });

  it('a redelivery (same X-Atlassian-Webhook-Identifier, same bytes) answers Already claimed without a second claim', async () => {
    const identifier = randomUUID();
    const first = await send(jiraWire(jiraUpdated('JRA-411', 'Ready for Agent'), { identifier }));
    expect(first).toEqual({ status: 202, body: 'Accepted: JRA-411 in jira-main', contentType: TEXT });
    expect(await send(jiraWire(jiraUpdated('JRA-411', 'Ready for Agent'), { identifier })))
      .toEqual({ status: 200, body: 'Already claimed: JRA-411', contentType: TEXT });
    expect(await runsOf(bench.db, 'platform-d', 'jira-main', 'JRA-411')).toHaveLength(1);
  });

  it('is not detected on POST /webhook (no event header): a 4xx, nothing claimed', async () => {
    const wire = jiraWire(jiraUpdated('JRA-412', 'Ready for Agent'));
    const answer = await send({ ...wire, url: '/webhook' });
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    await expectNothingClaimed('platform-d', 'jira-main', 'JRA-412');
  });
});

describe('malformed deliveries', () => {
  let nextTicket = 500;
  it.each([
    ['/webhook/platform-a', 'signed', { 'X-GitHub-Event': 'issues', 'X-Hub-Signature-256': githubSignature(SECRETS.platformA, '{"action": "labeled",') }, 400],
    ['/webhook/platform-a', 'unsigned', { 'X-GitHub-Event': 'issues' }, 401],
    ['/webhook', 'unsigned', { 'X-GitHub-Event': 'issues' }, 401],
    ['/webhook/platform-b', 'with its token', { 'X-Gitlab-Event': 'Issue Hook', 'X-Gitlab-Token': SECRETS.platformB }, 400],
    ['/webhook/platform-b', 'without its token', { 'X-Gitlab-Event': 'Issue Hook' }, 401],
    ['/webhook/platform-c', 'with its credential', { Authorization: basicAuth('u', SECRETS.platformC) }, 400],
    ['/webhook/platform-c', 'without its credential', {}, 401],
    ['/webhook/platform-d', 'routing to no project (nothing to verify)', {}, 400],
  ] as const)('answers malformed JSON on %s %s with %i (the secret is checked first), never a 5xx, and keeps serving', async (url, _how, headers, status) => {
    const delivery = randomUUID();
    const answer = await send({ url, headers: { 'content-type': 'application/json', 'X-GitHub-Delivery': delivery, ...headers }, payload: '{"action": "labeled",' });
    expect(answer.status).toBe(status);
    expect(answer.contentType).toBe(TEXT);
    if (status === 400) expect(answer.body).toMatch(/^Bad request: the body is not valid JSON: /);
    nextTicket += 1;
    const next = await send(githubWire('issues', githubLabeled(nextTicket)));
    expect(next).toEqual({ status: 202, body: `Accepted: ${nextTicket} in gh-main`, contentType: TEXT });
  });

  it('answers an unknown platform route with 404', async () => {
    const answer = await send({ url: '/webhook/platform-x', headers: { 'content-type': 'application/json' }, payload: '{}' });
    expect(answer.status).toBe(404);
  });

  it('answers a delivery no platform can be detected from with a 4xx', async () => {
    const answer = await send({ url: '/webhook', headers: { 'content-type': 'application/json' }, payload: '{"hello": "world"}' });
    expect(answer.status).toBe(400);
    expect(answer.contentType).toBe(TEXT);
  });

  it('answers a JSON value that is no object with 200 Filtered (never a 5xx)', async () => {
    for (const payload of ['[]', 'null', '42', '"issues"']) {
      const answer = await send({
        url: '/webhook/platform-a',
        headers: { 'content-type': 'application/json', 'X-GitHub-Event': 'issues', 'X-Hub-Signature-256': githubSignature(SECRETS.platformA, payload) },
        payload,
      });
      expect(answer.status).toBeLessThan(500);
    }
  });

  it('still routes the repository it was configured with', () => {
    // Guard for the fixtures: the project config and the octokit example agree on the URL.
    expect(githubExample('issues', 'labeled')['repository']).toMatchObject({ html_url: HELLO_WORLD });
  });
});
