import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandReplier } from '../../src/commands/command-replier.service.js';
import { Platform } from '../../src/platforms/platform.js';
import { CONTEXT_FILES, PROVIDER_OF } from '../agent/support/code-scenarios.js';
import { branchTip, commitFiles, setBranchTip } from '../stand-ins/git-repositories.js';
import type { GitHubStandIn } from '../stand-ins/github-stand-in.js';
import { ModelStandIn } from '../stand-ins/model-stand-in.js';
import { eventually } from '../support/eventually.js';
import { triggerLogRows } from '../webhooks/support/webhook-harness.js';
import { sendWire } from '../webhooks/support/webhook-harness.js';
import { type CodeHost, startCodeHost } from '../workspaces/support/code-hosts.js';
import { GIT_IDENTITY } from '../workspaces/support/publish-config.js';
import { PublishServer } from '../workspaces/support/publish-server.js';
import { type Commenter, freshId, pullRequestComment, pullRequestReview, wire } from './support/github-acts.js';

/**
 * Pull-request commands and review acts on GitHub through the whole server: octokit's documented
 * `issue_comment` and `pull_request_review` payloads, the GitHub stand-in (pull requests, issue
 * comments, the git remote the context check fetches) and the model stand-in (which must hear
 * nothing of a command whose author lacks write access).
 */
const TEXT = 'text/plain; charset=utf-8';
const COLLABORATOR: Commenter = { login: 'carol', association: 'COLLABORATOR' };
const OWNER: Commenter = { login: 'olga', association: 'OWNER' };
const CONTRIBUTOR: Commenter = { login: 'dave', association: 'CONTRIBUTOR' };

describe('pull-request commands on GitHub', () => {
  const token = `gh-cmd-${randomBytes(8).toString('hex')}`;
  const apiKey = `sk-cmd-${randomBytes(8).toString('hex')}`;
  let root: string;
  let host: CodeHost;
  let gh: GitHubStandIn;
  let model: ModelStandIn;
  let server: PublishServer;
  let repoUrl: string;
  /** A feature pull request with complete contexts, one whose branch has none, and a service pull request of ticket 31. */
  const pulls = { feature: 0, legacy: 0, service: 0, handedBack: 0 };

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'commands-gh-'));
    host = await startCodeHost(Platform.GitHub, root, token, 'app');
    gh = host.standIn as GitHubStandIn;
    const initial = branchTip(host.bare, 'main')!;
    commitFiles(host.bare, 'main', CONTEXT_FILES, 'Add the contexts');
    commitFiles(host.bare, 'feature', { 'src/a.ts': 'export const a = 1;\n' }, 'A feature', 'main');
    setBranchTip(host.bare, 'legacy', initial);
    commitFiles(host.bare, 'legacy', { 'src/old.ts': 'export const old = 1;\n' }, 'Old work without contexts');
    commitFiles(host.bare, 'service/34', { 'src/t34.ts': 'export const t = 34;\n' }, 'code: ticket 34', 'main');
    commitFiles(host.bare, 'service/31', { 'src/t31.ts': 'export const t = 31;\n' }, 'code: ticket 31', 'main');
    for (const ticket of ['31', '32', '33', '34']) host.addTicket(ticket, `Ticket ${ticket}`, `Do ticket ${ticket}.`);
    pulls.feature = host.openPullRequest({ head: 'feature', title: 'Feature' });
    pulls.legacy = host.openPullRequest({ head: 'legacy', title: 'Legacy' });
    pulls.service = host.openPullRequest({ head: 'service/31', title: 'Ticket 31', author: gh.login });
    pulls.handedBack = host.openPullRequest({ head: 'service/34', title: 'Ticket 34', author: gh.login });
    repoUrl = `${gh.url}/acme/app`;
    model = await ModelStandIn.start({ apiKey });
    const { provider, model: name, base } = PROVIDER_OF[Platform.GitHub];
    server = await PublishServer.boot({
      git: GIT_IDENTITY,
      sandbox: { backend: 'in-process', cpu: 1, memory: '1Gi', allow_agents_in_process: true },
      capacity: { cpu: 1, memory: '1Gi' },
      agent: { provider, model: name, base_url: base(model), api_key: apiKey, max_steps: 5, step_timeout_seconds: 60, requests_per_minute: 6000 },
      projects: {
        app: {
          ...host.trackerConfig('done', 'code'),
          pr_commands: { enabled: true, require_member: true, allowed_pipelines: ['code', 'pr-review'] },
          repos: [host.repoEntry()],
        },
      },
    });
  }, 90_000);

  afterAll(async () => {
    await server?.close();
    await model?.close();
    await host?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const send = (event: string, body: Record<string, unknown>, delivery?: string) => sendWire(server.app, wire(event, body, delivery));
  const comment = (number: number, body: string, by: Commenter, id?: number) => send('issue_comment', pullRequestComment(repoUrl, number, body, by, id));
  /** The service's replies on the pull request, once every reply under way is posted. */
  const replies = async (number: number) => {
    await server.app.get(CommandReplier).idle();
    return gh.pullRequest(number).comments.filter((c) => c.login === gh.login).map((c) => c.body);
  };
  const runsOf = async (where: string, params: unknown[]) =>
    (await server.db.query<{ id: string; state: string; pipeline: string; ticket: string | null; instructions: string | null }>(
      `SELECT id, state, pipeline, ticket, instructions FROM runs WHERE ${where} ORDER BY created_at`, params)).rows;
  /** Model calls that read a pull-request comment (the free-text path). */
  const commandCalls = () => model.modelCalls().filter((c) => c.body.includes('pull-request-comment'));
  const cancelAll = async () => {
    for (const run of await runsOf(`state IN ('queued', 'running')`, [])) await server.app.inject({ method: 'POST', url: `/api/runs/${run.id}/cancel` });
  };

  it('leaves near misses, help and a bare command outside a service pull request alone: nothing posted, nothing started, each in the trigger log', async () => {
    for (const body of ['/sa-is this right?', '/assign @carol', 'looks good; /sa review later', '/sa help', '/sa']) {
      const id = freshId();
      const answer = await comment(pulls.feature, body, COLLABORATOR, id);
      expect(answer.status, body).toBe(200);
      expect(answer.body, body).toMatch(/^Filtered: /);
    }
    expect(await replies(pulls.feature)).toEqual([]);
    expect(await runsOf('true', [])).toEqual([]);
    const [help] = await triggerLogRows(server.db, { reason: 'help: recognised, nothing is posted' });
    expect(help).toMatchObject({ event: 'issue_comment', project: 'app', outcome: 'filtered', status_code: 200 });
    expect(commandCalls()).toEqual([]);
  });

  it('refuses a CONTRIBUTOR before any model reads the command, and says so on the pull request', async () => {
    const answer = await comment(pulls.feature, '/sa please review the error handling here', CONTRIBUTOR);
    expect(answer).toEqual({ status: 200, body: 'Rejected: NoWriteAccess', contentType: TEXT });
    const [reply] = await replies(pulls.feature);
    expect(reply).toContain('dave needs write access');
    expect(reply).toContain('CONTRIBUTOR');
    expect(await runsOf('true', [])).toEqual([]);
    // The model stand-in heard nothing of it (the server's start-up probe aside).
    expect(model.modelCalls().filter((c) => c.body.includes('error handling'))).toEqual([]);
    expect(commandCalls()).toEqual([]);
  });

  it('starts a ticket-less pr-review against the pull request, answering the run; the comment is read once', async () => {
    const id = freshId();
    const answer = await comment(pulls.feature, '/sa pr-review\nmind the new export', COLLABORATOR, id);
    expect(answer).toEqual({ status: 202, body: `Accepted: app#${pulls.feature} in app`, contentType: TEXT });
    const [run] = await runsOf(`target ->> 'number' = $1`, [String(pulls.feature)]);
    expect(run).toMatchObject({ pipeline: 'pr-review', ticket: null, instructions: 'mind the new export' });
    expect((await replies(pulls.feature)).at(-1)).toMatch(new RegExp(`(Started|Queued) \`pr-review\` for pull request #${pulls.feature}: run \`${run!.id}\``));
    // The same comment again (a redelivery under a new delivery id) starts nothing.
    const again = await comment(pulls.feature, '/sa pr-review\nmind the new export', COLLABORATOR, id);
    expect(again.status).toBe(200);
    expect(again.body).toMatch(/^Filtered: comment:\d+ already read/);
    expect(await runsOf(`target ->> 'number' = $1`, [String(pulls.feature)])).toHaveLength(1);
    await cancelAll();
  });

  it('refuses a pipeline outside allowed_pipelines, and a ticket-less code', async () => {
    expect(await comment(pulls.feature, '/sa security-scan', OWNER)).toEqual({ status: 200, body: 'Rejected: PipelineNotAllowed', contentType: TEXT });
    expect((await replies(pulls.feature)).at(-1)).toContain('allows comments to start only `code`, `pr-review`');
    expect(await comment(pulls.feature, '/sa code', OWNER)).toEqual({ status: 200, body: 'Rejected: TicketRequired', contentType: TEXT });
    expect((await replies(pulls.feature)).at(-1)).toContain('name the ticket');
  });

  it('checks the context files on the branch first: one answer names branch, context, files and initialisation', async () => {
    expect(await comment(pulls.legacy, '/sa review', OWNER)).toEqual({ status: 200, body: 'Rejected: MissingContextFiles', contentType: TEXT });
    const [reply] = await replies(pulls.legacy);
    expect(reply).toContain('branch `legacy` lacks context files');
    expect(reply).toContain('context `default`: `context.yaml`, `principles.md`');
    expect(reply).toContain('POST /api/projects/app/init');
    expect(await runsOf(`target ->> 'number' = $1`, [String(pulls.legacy)])).toEqual([]);
  });

  it('claims a named ticket like any trigger and tells the pull request: started, busy, queued for capacity', async () => {
    model.script({ match: 'Ticket 32', turns: [{ fault: 'hang' }] });
    expect(await comment(pulls.feature, '/sa code #32 keep it small', OWNER)).toEqual({ status: 202, body: 'Accepted: 32 in app', contentType: TEXT });
    const [run32] = await runsOf('ticket = $1', ['32']);
    expect(run32).toMatchObject({ pipeline: 'code', instructions: 'keep it small' });
    expect((await replies(pulls.feature)).at(-1)).toContain(`\`code\` for ticket \`32\`: run \`${run32!.id}\``);
    await eventually(async () => ((await runsOf('ticket = $1', ['32']))[0]?.state === 'running' ? true : undefined), 30_000, 'run of 32 running');

    // Another command for the same ticket: nothing new starts, and the pull request is told which run works on it.
    expect(await comment(pulls.feature, '/sa code 32', OWNER)).toEqual({ status: 200, body: 'Already claimed: 32', contentType: TEXT });
    expect((await replies(pulls.feature)).at(-1)).toContain(`Nothing new started: run \`${run32!.id}\` already works on ticket \`32\``);

    // Capacity holds one run: a command for ticket 33 is claimed and waits its turn.
    expect(await comment(pulls.feature, '/sa code 33', OWNER)).toEqual({ status: 202, body: 'Accepted: 33 in app', contentType: TEXT });
    const [run33] = await runsOf('ticket = $1', ['33']);
    expect((await replies(pulls.feature)).at(-1)).toContain(`Queued \`code\` for ticket \`33\`: run \`${run33!.id}\` waits for capacity`);
    await cancelAll();
  });

  it('a CONTRIBUTOR cannot start a rework; a collaborator\'s bare command and Request changes do, but not the author or the service', async () => {
    // The service's own reply on the pull request (marker, the token's account) starts nothing.
    gh.addComment(pulls.service, '/sa\n<!-- pipeline-service -->', gh.login);
    // A pasted marker by someone else is a stranger's comment: still subject to write access.
    expect(await comment(pulls.service, '<!-- pipeline-service -->', CONTRIBUTOR)).toMatchObject({ status: 200, body: expect.stringMatching(/^Filtered: not a command/) });
    expect(await comment(pulls.service, '/sa\n<!-- pipeline-service -->', CONTRIBUTOR)).toEqual({ status: 200, body: 'Rejected: NoWriteAccess', contentType: TEXT });
    // The author (the token's account) is no reviewer: its comment reads as the service's own note.
    expect((await send('issue_comment', pullRequestComment(repoUrl, pulls.service, '/sa\n<!-- pipeline-service -->', { login: gh.login, association: 'OWNER' }))).body)
      .toBe("Filtered: the service's own note");
    expect(await runsOf('ticket = $1', ['31'])).toEqual([]);

    model.script({ match: 'Ticket 31', turns: [{ fault: 'hang' }] });
    expect(await comment(pulls.service, '/sa\nrename the export to t31\nand add a test', COLLABORATOR)).toEqual({ status: 202, body: 'Accepted: 31 in app', contentType: TEXT });
    const [rework] = await runsOf('ticket = $1', ['31']);
    expect(rework).toMatchObject({ pipeline: 'code', instructions: 'rename the export to t31\nand add a test' });
    expect((await replies(pulls.service)).at(-1)).toContain(`Rework of ticket \`31\``);

    // While that run works on the ticket, Request changes is not picked up, and the pull request says so.
    const review = pullRequestReview(repoUrl, pulls.service, 'service/31', 'changes_requested', 'Please split the module.', OWNER, gh.login);
    expect(await send('pull_request_review', review)).toEqual({ status: 200, body: 'Already claimed: 31', contentType: TEXT });
    expect((await replies(pulls.service)).at(-1)).toContain(`This review is not picked up: run \`${rework!.id}\` is working on ticket \`31\``);
    await cancelAll();
    await eventually(async () => ((await runsOf('ticket = $1', ['31']))[0]?.state === 'cancelled' ? true : undefined), 20_000, 'rework cancelled');

    // Once it has ended, Request changes starts the next attempt with the review's text; an approval starts nothing.
    expect(await send('pull_request_review', pullRequestReview(repoUrl, pulls.service, 'service/31', 'approved', 'LGTM', OWNER, gh.login))).toMatchObject({ status: 200, body: expect.stringMatching(/^Filtered: review approved/) });
    expect(await send('pull_request_review', pullRequestReview(repoUrl, pulls.service, 'service/31', 'changes_requested', 'Please split the module.', OWNER, gh.login)))
      .toEqual({ status: 202, body: 'Accepted: 31 in app', contentType: TEXT });
    const attempts = await runsOf('ticket = $1', ['31']);
    expect(attempts).toHaveLength(2);
    expect(attempts[1]).toMatchObject({ pipeline: 'code', instructions: 'Please split the module.' });
    // No model was ever asked to read a command on the service pull request.
    expect(commandCalls()).toEqual([]);
    await cancelAll();
  });

  it('reads free text with the model only after write access, as an untrusted block, and starts what it resolved', async () => {
    const before = commandCalls().length;
    model.script({ match: 'could you take a careful look', turns: [{ toolCalls: [{ name: 'resolve_command', input: { pipeline: 'pr-review' } }] }] });
    expect(await comment(pulls.feature, '/sa could you take a careful look at this change?', COLLABORATOR)).toEqual({ status: 202, body: `Accepted: app#${pulls.feature} in app`, contentType: TEXT });
    const calls = commandCalls().slice(before);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.text).toMatch(/<untrusted-data source="pull-request-comment" id="(\w+)">[^]*could you take a careful look[^]*<\/untrusted-data id="\1">/);
    await cancelAll();
  });

  it('a reply on the pull request followed by a command answers a parked ticket: the waiting run ends and the rework reads the reply', async () => {
    // The service's pull request of ticket 34 is open; the ticket's next run asks a question and parks.
    model.script({ match: 'Ticket 34', turns: [{ toolCalls: [{ name: 'ask', input: { kind: 'question', question: 'Blue or green? QUESTION-34' } }] }] });
    const parked = await server.claim(Platform.GitHub, 'app', '34', 'code');
    await eventually(async () => ((await runsOf('id = $1', [parked]))[0]?.state === 'parked' ? true : undefined), 60_000, 'run of 34 parked');
    // The hand-back is posted on the pull request too, though no run of this server recorded it (it was opened before).
    const note = await eventually(() => gh.pullRequest(pulls.handedBack).comments.find((c) => c.login === gh.login && c.body.includes('QUESTION-34')), 15_000, 'the hand-back on pull request of 34');
    expect(note.body).toContain(`<!-- pipeline-service:hand-back:${parked} -->`);

    // A plain reply is collected, not acted on; the command then answers with it.
    gh.addComment(pulls.handedBack, 'Go with blue. BLUE-ANSWER-34', COLLABORATOR.login, new Date(Date.now() + 1_000).toISOString());
    expect((await comment(pulls.handedBack, 'Go with blue. BLUE-ANSWER-34', COLLABORATOR)).body).toMatch(/^Filtered: not a command/);
    model.script({ match: 'BLUE-ANSWER-34', turns: [{ fault: 'hang' }] });
    expect(await comment(pulls.handedBack, '/sa', COLLABORATOR)).toEqual({ status: 202, body: 'Accepted: 34 in app', contentType: TEXT });
    const [before, resumed] = await runsOf('ticket = $1', ['34']);
    expect(before).toMatchObject({ id: parked, state: 'cancelled' });
    expect(resumed).toMatchObject({ pipeline: 'code' });
    expect((await replies(pulls.handedBack)).at(-1)).toContain(`your answer resumes ticket \`34\` as run \`${resumed!.id}\``);

    // The next attempt's model reads the question, and the reply inside an untrusted block.
    const call = await eventually(async () => model.modelCalls().find((c) => c.body.includes('BLUE-ANSWER-34') && c.body.includes('QUESTION-34')), 60_000, 'the resumed run asks the model');
    expect(call.text).toMatch(/<untrusted-data source="[\w-]+" id="(\w+)">[^]*Go with blue\. BLUE-ANSWER-34[^]*<\/untrusted-data id="\1">/);
    await cancelAll();
  });
});
