import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PIPELINES, TEST_PROJECTS, type Wire, jiraUpdated, jiraWire } from './support/deliveries.js';
import { type WebhookBench, type WebhookReply, bootServer, createWebhookBench, githubSignature, runsOf, sendWire, triggerLogRows } from './support/webhook-harness.js';

/**
 * Jira issue keys through the real server: one Jira issue is one ticket whatever the key's case,
 * anything that is no issue key is filtered (never claimed, never a 5xx), and a delivery cannot
 * borrow another project's routing (and so its missing secret) through `fields.project.key`.
 */
const BILLING_SECRET = 'billing-jira-secret';
const PROJECTS = {
  ...TEST_PROJECTS,
  // OPS and QA carry no secret (their deliveries are not verified); BILL carries one.
  ops: {
    tracker: 'platform-d',
    platform_d_trigger: { site_url: 'https://ops.atlassian.net', project_key: 'OPS', trigger_statuses: ['Ready for Agent'], default_pipeline: 'code' },
  },
  qa: {
    tracker: 'platform-d',
    platform_d_trigger: { site_url: 'https://ops.atlassian.net', project_key: 'QA', trigger_statuses: ['Ready for Agent'], default_pipeline: 'code' },
  },
  billing: {
    tracker: 'platform-d',
    platform_d_trigger: {
      site_url: 'https://ops.atlassian.net', project_key: 'BILL', secret: BILLING_SECRET, trigger_statuses: ['Ready for Agent'], default_pipeline: 'code',
    },
  },
};
const TEXT = 'text/plain; charset=utf-8';

let bench: WebhookBench;
let app: NestFastifyApplication;

const send = (wire: Wire): Promise<WebhookReply> => sendWire(app, wire);

/** The documented example moved to `Ready for Agent`, for `key`, optionally naming `fields.project.key`. */
function readyForAgent(key: string, projectKey?: string): Record<string, unknown> {
  const body = jiraUpdated(key, 'Ready for Agent');
  if (projectKey !== undefined) ((body['issue'] as Record<string, Record<string, unknown>>)['fields']!)['project'] = { key: projectKey, name: projectKey };
  return body;
}

async function ticketsOf(project: string): Promise<string[]> {
  const { rows } = await bench.db.query<{ ticket: string }>(
    "SELECT ticket FROM tickets WHERE platform = 'platform-d' AND project = $1 ORDER BY ticket", [project]);
  return rows.map((row) => row.ticket);
}

beforeAll(async () => {
  bench = await createWebhookBench({ projects: PROJECTS, pipelines: TEST_PIPELINES });
  app = await bootServer(bench.environment());
});

afterAll(async () => {
  await app?.close();
  await bench?.cleanup();
});

describe('Jira issue keys are normalised', () => {
  it('claims ops-1 as OPS-1; Ops-1 and OPS-1 are the same ticket; one run in all', async () => {
    expect(await send(jiraWire(readyForAgent('ops-1'), { signature: null }))).toEqual({ status: 202, body: 'Accepted: OPS-1 in ops', contentType: TEXT });
    for (const key of ['Ops-1', 'OPS-1', 'oPS-1']) {
      expect(await send(jiraWire(readyForAgent(key), { signature: null }))).toEqual({ status: 200, body: 'Already claimed: OPS-1', contentType: TEXT });
    }
    expect(await ticketsOf('ops')).toEqual(['OPS-1']);
    expect(await runsOf(bench.db, 'platform-d', 'ops', 'OPS-1')).toHaveLength(1);
  });
});

describe('anything that is no Jira issue key is filtered, never claimed', () => {
  it.each([
    ['a leading zero', 'OPS-01', 'Filtered: issue.key OPS-01 is not a Jira issue key'],
    ['a path', '../../x?y', 'Filtered: issue.key "../../x?y" is not a Jira issue key'],
    ['a NUL', 'OPS-2\u0000', 'Filtered: issue.key "OPS-2\\u0000" is not a Jira issue key'],
    ['5 KB', `OPS-${'7'.repeat(5 * 1024)}`, `Filtered: issue.key "OPS-${'7'.repeat(60)}"… is not a Jira issue key`],
  ])('%s: 200 Filtered with the reason, logged, nothing claimed in any project', async (_what, key, body) => {
    const identifier = randomUUID();
    expect(await send(jiraWire(readyForAgent(key), { signature: null, identifier }))).toEqual({ status: 200, body, contentType: TEXT });
    const [log] = await triggerLogRows(bench.db, { delivery_id: identifier });
    expect(log).toMatchObject({ platform: 'platform-d', project: null, ticket: null, outcome: 'filtered', status_code: 200, reason: body.slice('Filtered: '.length) });
    expect((await ticketsOf('ops')).filter((ticket) => ticket !== 'OPS-1')).toEqual([]);
  });
});

describe('the issue key and fields.project.key must name the same project', () => {
  it('filters QA-3 claiming to be in OPS (neither has a secret): nothing claimed in either project', async () => {
    const identifier = randomUUID();
    expect(await send(jiraWire(readyForAgent('QA-3', 'OPS'), { signature: null, identifier })))
      .toEqual({ status: 200, body: 'Filtered: issue key QA-3 does not belong to project OPS', contentType: TEXT });
    expect(await runsOf(bench.db, 'platform-d', 'ops', 'QA-3')).toHaveLength(0);
    expect(await runsOf(bench.db, 'platform-d', 'qa', 'QA-3')).toHaveLength(0);
    const [log] = await triggerLogRows(bench.db, { delivery_id: identifier });
    expect(log).toMatchObject({ project: null, ticket: null, outcome: 'filtered', reason: 'issue key QA-3 does not belong to project OPS' });
  });

  it('filters BILL-3 claiming to be in OPS even when signed with the BILL secret', async () => {
    const body = readyForAgent('BILL-3', 'OPS');
    const signed = jiraWire(body, { signature: githubSignature(BILLING_SECRET, JSON.stringify(body)) });
    expect(await send(signed)).toEqual({ status: 200, body: 'Filtered: issue key BILL-3 does not belong to project OPS', contentType: TEXT });
    expect(await runsOf(bench.db, 'platform-d', 'ops', 'BILL-3')).toHaveLength(0);
    expect(await runsOf(bench.db, 'platform-d', 'billing', 'BILL-3')).toHaveLength(0);
  });

  it('never claims an unsigned BILL-3 claiming to be in OPS (the review\'s bypass)', async () => {
    const answer = await send(jiraWire(readyForAgent('BILL-3', 'OPS'), { signature: null }));
    // Filtered by the parser; or refused first, when the secret is chosen from every project the body names.
    expect([
      { status: 200, body: 'Filtered: issue key BILL-3 does not belong to project OPS', contentType: TEXT },
      { status: 401, body: 'Unauthorized: signature missing', contentType: TEXT },
    ]).toContainEqual(answer);
    expect(await runsOf(bench.db, 'platform-d', 'ops', 'BILL-3')).toHaveLength(0);
    expect(await runsOf(bench.db, 'platform-d', 'billing', 'BILL-3')).toHaveLength(0);
  });

  it('routes BILL-4 in project BILL to billing, so its secret is required: 401 unsigned, 202 signed', async () => {
    const body = readyForAgent('BILL-4', 'bill');
    expect((await send(jiraWire(body, { signature: null }))).status).toBe(401);
    expect(await runsOf(bench.db, 'platform-d', 'billing', 'BILL-4')).toHaveLength(0);
    const signed = jiraWire(body, { signature: githubSignature(BILLING_SECRET, JSON.stringify(body)) });
    expect(await send(signed)).toEqual({ status: 202, body: 'Accepted: BILL-4 in billing', contentType: TEXT });
    expect(await runsOf(bench.db, 'platform-d', 'billing', 'BILL-4')).toHaveLength(1);
  });

  it('routes by the key alone when the payload carries no fields.project: bill-5 needs the BILL secret', async () => {
    expect((await send(jiraWire(readyForAgent('bill-5'), { signature: null }))).status).toBe(401);
    expect(await ticketsOf('ops')).toEqual(['OPS-1']);
  });
});
