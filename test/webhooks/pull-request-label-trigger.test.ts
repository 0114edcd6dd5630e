import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { githubExample, loadFixture } from '../fixtures/payload-fixtures.js';
import { TEST_PROJECTS, type Wire, githubWire, gitlabWire } from './support/deliveries.js';
import { type WebhookBench, bootServer, createWebhookBench, jobsFor, sendWire, triggerLogRows } from './support/webhook-harness.js';

/**
 * The pull-request label trigger through the real server (spec, "Label trigger"): the documented
 * payloads (octokit's `pull_request` `labeled`, GitLab's `Merge Request Hook`) start a
 * `security-scan` run that targets the pull request, once per pull request while it is live.
 */
let bench: WebhookBench;
let app: NestFastifyApplication;
const TEXT = 'text/plain; charset=utf-8';
const send = (wire: Wire) => sendWire(app, wire);

type Json = Record<string, unknown>;
const rec = (value: unknown): Json => value as Json;

function githubPullRequestLabeled(number: number, label: string): Json {
  const body = githubExample('pull_request', 'labeled');
  body['number'] = number;
  rec(body['pull_request'])['number'] = number;
  rec(body['label'])['name'] = label;
  return body;
}

function gitlabMergeRequestUpdate(iid: number, labels: string[], action = 'update'): Json {
  const body = loadFixture('gitlab', 'merge-request-hook');
  rec(body['object_attributes'])['iid'] = iid;
  rec(body['object_attributes'])['action'] = action;
  body['labels'] = labels.map((title, id) => ({ id, title }));
  delete body['changes'];
  return body;
}

async function pullRequestRuns(project: string, repo: string, number: number) {
  const { rows } = await bench.db.query<{ id: string; state: string; pipeline: string; ticket: string | null; target: unknown }>(
    `SELECT id, state, pipeline, ticket, target FROM runs WHERE project = $1 AND target ->> 'repo' = $2 AND (target ->> 'number')::int = $3`, [project, repo, number]);
  return rows;
}

beforeAll(async () => {
  bench = await createWebhookBench({
    projects: {
      ...TEST_PROJECTS,
      'gh-main': { ...(TEST_PROJECTS['gh-main'] as Json), platform_a_trigger: { ...rec(rec(TEST_PROJECTS['gh-main'])['platform_a_trigger']), pr_trigger_label: 'Sec-Check' } },
    },
  });
  app = await bootServer(bench.environment());
});

afterAll(async () => {
  await app?.close();
  await bench?.cleanup();
});

describe('the pull-request label trigger', () => {
  it('GitHub: security-review added to a pull request starts one security-scan of it; a redelivery and a second label are answered Already claimed', async () => {
    const delivery = randomUUID();
    const wire = githubWire('pull_request', githubPullRequestLabeled(41, 'security-review'), { delivery });
    expect(await send(wire)).toEqual({ status: 202, body: 'Accepted: hello-world#41 in gh-main', contentType: TEXT });
    const runs = await pullRequestRuns('gh-main', 'hello-world', 41);
    expect(runs).toEqual([{ id: expect.any(String), state: 'queued', pipeline: 'security-scan', ticket: null, target: { repo: 'hello-world', number: 41 } }]);
    const runId = runs[0]!.id;
    expect(await jobsFor(bench.queue, runId)).toBe(1);
    expect((await bench.queue.getJob(runId))?.data).toEqual({ runId, platform: 'platform-a', project: 'gh-main', ticket: null, pipeline: 'security-scan', target: { repo: 'hello-world', number: 41 } });
    const [log] = await triggerLogRows(bench.db, { delivery_id: delivery });
    expect(log).toMatchObject({ platform: 'platform-a', event: 'pull_request', project: 'gh-main', outcome: 'Claimed', status_code: 202 });

    expect(await send(wire)).toEqual({ status: 200, body: 'Already claimed: hello-world#41', contentType: TEXT });
    expect(await send(githubWire('pull_request', githubPullRequestLabeled(41, 'sec-check'), { delivery: randomUUID() })))
      .toEqual({ status: 200, body: 'Already claimed: hello-world#41', contentType: TEXT });
    expect(await pullRequestRuns('gh-main', 'hello-world', 41)).toHaveLength(1);
  });

  it("GitHub: the project's pr_trigger_label starts a scan too, case-insensitively; another label is filtered", async () => {
    expect(await send(githubWire('pull_request', githubPullRequestLabeled(42, 'SEC-CHECK'), { delivery: randomUUID() })))
      .toEqual({ status: 202, body: 'Accepted: hello-world#42 in gh-main', contentType: TEXT });
    const filtered = await send(githubWire('pull_request', githubPullRequestLabeled(43, 'bug'), { delivery: randomUUID() }));
    expect(filtered.status).toBe(200);
    expect(filtered.body).toMatch(/^Filtered: no pull-request trigger label/);
    expect(await pullRequestRuns('gh-main', 'hello-world', 43)).toEqual([]);
  });

  it('GitHub: a pull request of an undeclared repository is rejected, nothing starts', async () => {
    const body = githubPullRequestLabeled(44, 'security-review');
    rec(body['repository'])['html_url'] = 'https://github.com/acme/nobody-declares-this';
    expect(await send(githubWire('pull_request', body, { delivery: randomUUID() }))).toEqual({ status: 200, body: 'Rejected: UnknownProject', contentType: TEXT });
  });

  it('GitLab: any update of a merge request carrying the label starts a scan; a merged one does not', async () => {
    expect(await send(gitlabWire('Merge Request Hook', gitlabMergeRequestUpdate(51, ['backend', 'Security-Review']))))
      .toEqual({ status: 202, body: 'Accepted: gitlab-test#51 in gl-main', contentType: TEXT });
    expect(await pullRequestRuns('gl-main', 'gitlab-test', 51)).toMatchObject([{ pipeline: 'security-scan', ticket: null }]);
    const merged = await send(gitlabWire('Merge Request Hook', gitlabMergeRequestUpdate(52, ['security-review'], 'merge')));
    expect(merged.body).toContain('merged');
    expect(await pullRequestRuns('gl-main', 'gitlab-test', 52)).toEqual([]);
  });
});
