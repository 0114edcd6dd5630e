import { randomUUID } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PULL_REQUEST_FEEDBACK, type PullRequestFeedbackSource } from '../../src/conversations/pull-request-feedback.js';
import { Platform } from '../../src/platforms/platform.js';
import { SERVICE_MARKER } from '../../src/platforms/service-marker.js';
import { AzureDevOpsStandIn } from '../stand-ins/azure-devops-stand-in.js';
import { GitHubStandIn } from '../stand-ins/github-stand-in.js';
import { GitLabStandIn } from '../stand-ins/gitlab-stand-in.js';
import { tempConfig, type TempConfig } from '../support/temp-config.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { testEnvironment } from '../support/test-env.js';
import { bootRework, RecordingLogger } from './support/rework-app.js';

const SECRETS = { GH_TOKEN: 'ghp_FeedbackSecret0001', GL_TOKEN: 'glpat-FeedbackSecret0002', ADO_PAT: 'adoFeedbackSecret0003', DOCS_TOKEN: 'ghp_FeedbackSecret0004' };
/** The previous attempt of ticket 42 started at 10:00; minutes before and after it. */
const at = (hour: number, minute = 0): string => new Date(Date.UTC(2026, 2, 1, hour, minute)).toISOString();
const BEFORE = at(9, 30);

describe('PullRequestFeedbackService with the code-host stand-ins and a real database', () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let config: TempConfig;
  let github: GitHubStandIn;
  let docs: GitHubStandIn;
  let gitlab: GitLabStandIn;
  let ado: AzureDevOpsStandIn;
  let app: INestApplicationContext;
  let logger: RecordingLogger;
  let feedback: PullRequestFeedbackSource;

  beforeAll(async () => {
    database = await createTestDatabase('rework_feedback');
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
    github = await new GitHubStandIn(SECRETS.GH_TOKEN).start();
    docs = await new GitHubStandIn(SECRETS.DOCS_TOKEN, 'acme', 'docs').start();
    gitlab = await new GitLabStandIn(SECRETS.GL_TOKEN).start();
    ado = await new AzureDevOpsStandIn(SECRETS.ADO_PAT).start();
    config = tempConfig('rework-feedback', {
      secrets: SECRETS,
      projects: {
        shop: {
          tracker: 'platform-a',
          repos: [
            { name: 'shop-web', platform: 'platform-a', url: 'https://github.com/acme/shop-web', api_url: github.apiUrl, auth_secret: '${GH_TOKEN}' },
            { name: 'billing', platform: 'platform-b', url: 'https://gitlab.example/fin/billing', api_url: gitlab.apiUrl, auth_secret: '${GL_TOKEN}' },
            { name: 'ado-web', platform: 'platform-c', url: ado.repositoryWebUrl, api_url: ado.organizationUrl, auth_secret: '${ADO_PAT}' },
            { name: 'docs', platform: 'platform-a', url: 'https://github.com/acme/docs', api_url: docs.apiUrl, auth_secret: '${DOCS_TOKEN}' },
          ],
        },
      },
    });
    logger = new RecordingLogger();
    app = await bootRework(testEnvironment({ SERVICE_CONFIG: config.path, SERVICE_DATA_DIR: config.dir, DATABASE_URL: database.url }), logger);
    feedback = app.get<PullRequestFeedbackSource>(PULL_REQUEST_FEEDBACK);
  });
  afterAll(async () => {
    await app?.close();
    await pool?.end();
    await Promise.all([github, docs, gitlab, ado].map((s) => s?.stop()));
    await database?.drop();
    config?.remove();
  });

  async function run(ticket: string, state: string, createdAt: string, startedAt: string | null): Promise<string> {
    const id = randomUUID();
    await pool.query(`INSERT INTO runs (id, platform, project, ticket, pipeline, state, created_at, started_at) VALUES ($1, 'platform-a', 'shop', $2, 'code', $3, $4, $5)`,
      [id, ticket, state, createdAt, startedAt]);
    return id;
  }
  async function recorded(runId: string, ticket: string, repo: string, number: number, url: string): Promise<void> {
    await pool.query(`INSERT INTO pull_requests (run_id, project, ticket, repo, url, number, state) VALUES ($1, 'shop', $2, $3, $4, $5, 'open')`, [runId, ticket, repo, url, number]);
  }

  it('reads, on each repository’s open service pull request, what was written since the previous attempt and every open thread', async () => {
    await run('42', 'failed', at(8), at(8, 1));
    const previous = await run('42', 'succeeded', at(9, 59), at(10));
    await run('7', 'succeeded', at(10, 30), at(10, 31)); // another ticket's start is not ours
    const current = await run('42', 'running', at(11), at(11));

    // GitHub: recorded by the previous run.
    const gh = github.openPullRequest({ head: 'service/42' });
    await recorded(previous, '42', 'shop-web', gh, `${github.webUrl}/pull/${gh}`);
    github.addComment(gh, 'Old remark.', 'ana', BEFORE);
    github.addComment(gh, 'Please handle the empty cart.', 'ana', at(10, 5));
    github.addComment(gh, `Review by pipeline-service\n${SERVICE_MARKER}`, 'pipeline-bot', at(10, 6));
    github.addComment(gh, `Why does it say ${SERVICE_MARKER}?`, 'ana', at(10, 7));
    const open = github.pulls.reviews.addComment(gh, { path: 'src/cart.ts', line: 4, body: 'Off by one?', login: 'ana', createdAt: BEFORE });
    const settled = github.pulls.reviews.addComment(gh, { path: 'src/cart.ts', line: 9, body: 'Rename.', login: 'bo', createdAt: BEFORE });
    github.pulls.reviews.resolveThread(settled);
    github.pulls.reviews.addReview(gh, { event: 'REQUEST_CHANGES', body: 'Two things.', login: 'ana', submittedAt: at(10, 8) });

    // GitLab: nothing recorded, found on the host.
    const mr = gitlab.openPullRequest({ head: 'service/42' });
    gitlab.addMergeRequestNote(mr, 'Old note.', { username: 'ana', createdAt: BEFORE });
    gitlab.addReviewer(mr, 'ana');
    gitlab.reviewAct(mr, 'ana', 'requested_changes', at(10, 10));
    gitlab.addMergeRequestNote(mr, 'Use the new rounding.', { username: 'ana', createdAt: at(10, 11) });

    // Azure DevOps: the recorded pull request was completed; the open one is found on the host.
    const stale = ado.openPullRequest({ head: 'service/42' });
    ado.addThread(stale, 'On the finished one.', { publishedDate: at(10, 20) });
    ado.mergePullRequest(stale);
    await recorded(previous, '42', 'ado-web', stale, `${ado.repositoryWebUrl}/pullrequest/${stale}`);
    const pr = ado.openPullRequest({ head: 'service/42' });
    ado.addThread(pr, 'Still open from before.', { uniqueName: 'ana@acme.example', publishedDate: BEFORE });
    const fixed = ado.addThread(pr, 'Fixed before.', { uniqueName: 'bo@acme.example', status: 'fixed', publishedDate: BEFORE });
    ado.addReply(pr, fixed, 'Not quite fixed.', { uniqueName: 'bo@acme.example', publishedDate: at(10, 30) });
    ado.addThread(pr, 'Ana voted -5', { uniqueName: 'ana@acme.example', system: true, publishedDate: at(10, 31) });
    ado.addThread(pr, `Scan passed\n${SERVICE_MARKER}`, { uniqueName: 'pipeline-bot@acme.example', publishedDate: at(10, 32) });

    // docs: a pull request from another branch only.
    docs.openPullRequest({ head: 'feature' });

    const found = await feedback.feedbackFor({ runId: current, platform: Platform.GitHub, project: 'shop', ticket: '42' });
    expect(found.map((f) => [f.repo, f.number, f.url])).toEqual([
      ['shop-web', gh, `${github.webUrl}/pull/${gh}`],
      ['billing', mr, `${gitlab.webUrl}/-/merge_requests/${mr}`],
      ['ado-web', pr, `${ado.repositoryWebUrl}/pullrequest/${pr}`],
    ]);
    const bodies = Object.fromEntries(found.map((f) => [f.repo, f.items.map((i) => i.body)]));
    expect(bodies).toEqual({
      'shop-web': ['Off by one?', 'Please handle the empty cart.', `Why does it say ${SERVICE_MARKER}?`, 'Two things.'],
      billing: ['Use the new rounding.'],
      'ado-web': ['Still open from before.', 'Not quite fixed.'],
    });
    expect(found[0]!.items[0]).toMatchObject({ id: `review-comment/${open}`, author: 'ana', path: 'src/cart.ts', line: 4, resolved: false });
    // The recorded Azure DevOps pull request was asked about before the host's search.
    const asked = ado.requests.filter((r) => r.method === 'GET' && /\/pull[Rr]equests(\/\d+)?$/.test(r.path)).map((r) => r.path.split('/').pop());
    expect(asked).toEqual([String(stale), 'pullrequests']);
    expect(logger.lines).toEqual([]);
  });

  it('the first attempt reads everything but the service’s own; a host that fails is logged and left out', async () => {
    const current = await run('43', 'running', at(12), at(12));
    const gh = github.openPullRequest({ head: 'service/43' });
    github.addComment(gh, 'Long ago.', 'ana', at(1));
    github.addComment(gh, `Own note\n${SERVICE_MARKER}`, 'pipeline-bot', at(2));
    const resolved = github.pulls.reviews.addComment(gh, { path: 'a.ts', line: 1, body: 'Settled long ago.', login: 'bo', createdAt: at(3) });
    github.pulls.reviews.resolveThread(resolved);
    gitlab.openPullRequest({ head: 'service/43' });
    gitlab.setDown('unavailable');
    try {
      const found = await feedback.feedbackFor({ runId: current, platform: Platform.GitHub, project: 'shop', ticket: '43' });
      expect(found.map((f) => [f.repo, f.items.map((i) => i.body)])).toEqual([['shop-web', ['Long ago.', 'Settled long ago.']]]);
    } finally {
      gitlab.setDown(null);
    }
    const warnings = logger.lines.filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toMatch(new RegExp(`run ${current}: review feedback of repository billing left out: .*503`));
    for (const secret of Object.values(SECRETS)) expect(JSON.stringify(logger.lines)).not.toContain(secret);
  });

  it('a project it does not know has no feedback', async () => {
    expect(await feedback.feedbackFor({ runId: randomUUID(), platform: Platform.GitHub, project: 'nope', ticket: '42' })).toEqual([]);
  });
});
