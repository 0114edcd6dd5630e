import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../../src/platforms/platform.js';
import { SERVICE_MARKER } from '../../../src/platforms/service-marker.js';
import { scrubSecrets } from '../../../src/common/secret-scrubber.js';
import { WorkspacesService } from '../../../src/workspaces/workspaces.service.js';
import { branchTip, commitFiles, fileAt, git, protectBranch, show, treeOf } from '../../stand-ins/git-repositories.js';
import type { FaultSpec } from '../../stand-ins/stand-in-server.js';
import { eventually } from '../../support/eventually.js';
import { type CodeHost, DONE_STATUS, type HostKind, startCodeHost } from './code-hosts.js';
import { ERROR_TICKETS, GIT_IDENTITY, RACE_TICKET, TICKETS, WRONG_TOKEN, closedPortUrl, publishingPipelines, publishingProjects } from './publish-config.js';
import { PublishServer } from './publish-server.js';

interface RunView {
  id: string;
  state: string;
  error: string | null;
  pullRequests: { repo: string; url: string; number: number; state: string }[];
}

interface PullRequestItem {
  runId: string;
  project: string;
  ticket: string;
  repo: string;
  url: string;
  number: number;
  state: string;
}

const DONE_LABEL = 'service:done';

/** Each host's refusal of a token that may push but not open pull requests, as the host answers it. */
const PULL_REQUEST_REFUSAL: Record<HostKind, FaultSpec> = {
  [Platform.GitHub]: {
    status: 403,
    body: { message: 'Resource not accessible by integration', documentation_url: 'https://docs.github.com/rest/pulls/pulls#create-a-pull-request', status: '403' },
  },
  [Platform.GitLab]: { status: 403, body: { message: '403 Forbidden' } },
  [Platform.AzureDevOps]: {
    status: 403,
    body: {
      $id: '1', innerException: null, errorCode: 0, eventId: 3000,
      message: "TF401027: You need the Git 'PullRequestContribute' permission to perform this action.",
      typeName: 'Microsoft.TeamFoundation.Git.Server.GitNeedsPermissionException, Microsoft.TeamFoundation.Git.Server',
      typeKey: 'GitNeedsPermissionException',
    },
  },
};

/** The request that creates a pull (merge) request on any of the three hosts. */
const isPullRequestCreate = (req: { method: string; path: string }) => req.method === 'POST' && /\/(pulls|merge_requests|pullrequests)$/i.test(req.path);

/** Every file under `dir` (none when it does not exist). */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** `%(trailers:key=…,valueonly)` of the branch's tip. */
const trailer = (bare: string, ref: string, key: string) => show(bare, ref, `%(trailers:key=${key},valueonly)`);

/**
 * The "Done when" scenarios end to end through the whole server for one code host: a
 * real git remote over smart HTTP behind the host's stand-in, tickets on the same host, command
 * pipelines that publish, and assertions on what the remote, the host's pull requests, the
 * ticket and the API show afterwards.
 */
export function describePublishing(kind: HostKind): void {
  describe(`publishing through ${kind}, end to end`, () => {
    const token = `e2e-${kind}-token-${randomBytes(10).toString('hex')}`;
    const doneStatus = DONE_STATUS[kind];
    let root: string;
    let host: CodeHost;
    let second: CodeHost;
    let server: PublishServer;
    /** What someone else pushes to the race's work branch while its run works. */
    let raceTip: string;

    beforeAll(async () => {
      root = mkdtempSync(join(tmpdir(), 'publish-e2e-'));
      host = await startCodeHost(kind, root, token, 'shop-web');
      second = await startCodeHost(kind, root, token, 'shop-api');
      host.addTicket(TICKETS.greet, 'Greet the visitors');
      host.addTicket(TICKETS.broken, 'Half-done work');
      host.addTicket(TICKETS.multi, 'Greet on both sides');
      host.addTicket(TICKETS.leak, 'Leaky change');
      host.addTicket(TICKETS.snoop, 'Look around');
      raceTip = commitFiles(host.bare, 'elsewhere', { 'greeting.txt': 'theirs\n' }, 'Someone else', 'main');
      const closedUrl = await closedPortUrl(new URL(host.repoEntry().url as string).pathname);
      server = await PublishServer.boot({
        git: GIT_IDENTITY,
        pipelines: publishingPipelines(host, raceTip),
        projects: publishingProjects(host, second, doneStatus, closedUrl),
      });
    });

    afterAll(async () => {
      await server?.close();
      await host?.stop();
      await second?.stop();
      if (root) rmSync(root, { recursive: true, force: true });
    });

    const prsOf = (on: CodeHost, branch: string) => on.pullRequests().filter((pr) => pr.head === branch);
    const run = (project: string, ticket: string, pipeline: string) => server.run(project === 'shop' || project === 'duo' ? kind : Platform.Jira, project, ticket, pipeline);
    const doneShown = (ticket: string) => eventually(() => (host.showsDoneStatus(ticket) && host.labels(ticket).includes(DONE_LABEL) ? true : undefined), 15_000, `ticket ${ticket} to show ${doneStatus} and ${DONE_LABEL}`);
    const commentWith = (ticket: string, text: string) => eventually(() => host.comments(ticket).find((c) => c.includes(text)), 15_000, `a comment on ${ticket} with ${text}`);
    /** The ticket's comment was posted, and only then its done status set, by what the host received since request `since`. */
    const commentBeforeStatus = async (ticket: string, since: number) => {
      const received = () => host.standIn.requests.slice(since);
      const statusAt = await eventually(() => {
        const at = received().findIndex((r) => host.isDoneStatusWrite(r, ticket));
        return at < 0 ? undefined : at;
      }, 15_000, `the done status of ${ticket} to be set`);
      const commentAt = received().findIndex((r) => host.isCommentPost(r, ticket));
      expect(commentAt).toBeGreaterThanOrEqual(0);
      expect(commentAt).toBeLessThan(statusAt);
    };

    it('publishes an edited file: work branch, one pull request, the ticket comment before the done status, and the API', async () => {
      const ticket = TICKETS.greet;
      const branch = `service/${ticket}`;
      const base = branchTip(host.bare, 'main');
      const since = host.standIn.requests.length;
      const { runId, state, error } = await run('shop', ticket, 'greet');
      expect({ state, error }).toEqual({ state: 'succeeded', error: null });

      // The remote: one commit on the work branch, on top of main, as the contract spells it.
      expect(show(host.bare, branch, '%P')).toBe(base);
      expect(show(host.bare, branch, '%an <%ae>|%cn <%ce>')).toBe(`${GIT_IDENTITY.author_name} <${GIT_IDENTITY.author_email}>|${GIT_IDENTITY.author_name} <${GIT_IDENTITY.author_email}>`);
      expect(show(host.bare, branch, '%s')).toBe(`greet: Greet the visitors (${ticket})`);
      expect(trailer(host.bare, branch, 'Run-Id')).toBe(runId);
      expect(trailer(host.bare, branch, 'Pipeline')).toBe('greet');
      expect(fileAt(host.bare, branch, 'greeting.txt')).toBe('hello\n');
      // What .gitignore ignores (build/) is not part of the change.
      expect([...treeOf(host.bare, branch).keys()].sort()).toEqual(['.gitignore', 'README.md', 'greeting.txt']);
      expect(branchTip(host.bare, 'main')).toBe(base); // the base branch is left alone

      // The host: exactly one pull request, head the work branch, base main, the contract's title and body.
      const prs = prsOf(host, branch);
      expect(prs).toHaveLength(1);
      const pr = prs[0]!;
      expect(pr).toMatchObject({ title: 'Greet the visitors', base: 'main', open: true });
      expect(pr.body).toContain(SERVICE_MARKER);
      expect(pr.body).toContain(`[${ticket}](${host.ticketUrl(ticket)})`);
      expect(pr.body).toContain(runId);
      expect(pr.body).toContain('Ran the greet pipeline');

      // The API: the pull request is recorded with the run.
      const listed = await server.get<{ items: PullRequestItem[]; total: number }>('/api/pull-requests?project=shop');
      expect(listed.status).toBe(200);
      const item = listed.body.items.find((i) => i.ticket === ticket);
      expect(item).toMatchObject({ runId, project: 'shop', ticket, repo: 'shop-web', number: pr.number, state: 'open' });
      const resource = await server.get<RunView>(`/api/runs/${runId}`);
      expect(resource.body.pullRequests).toEqual([{ repo: 'shop-web', url: item!.url, number: pr.number, state: 'open' }]);

      // The ticket: one comment listing the pull request, posted before the done status was set.
      await commentBeforeStatus(ticket, since);
      await doneShown(ticket);
      const comment = await commentWith(ticket, item!.url);
      expect(comment).toContain(runId);
      expect(host.comments(ticket)).toHaveLength(1);
    });

    it('re-running the Done ticket updates the same pull request, which moves to the new run', async () => {
      const ticket = TICKETS.greet;
      const branch = `service/${ticket}`;
      const [before] = prsOf(host, branch);
      const firstRun = (await server.db.query<{ run_id: string }>('SELECT run_id FROM pull_requests WHERE ticket = $1', [ticket])).rows[0]!.run_id;
      const previousTip = branchTip(host.bare, branch);
      const since = host.standIn.requests.length;

      const { runId, state, error } = await run('shop', ticket, 'again');
      expect({ state, error }).toEqual({ state: 'succeeded', error: null });

      // It started from the work branch and added one commit to it.
      expect(show(host.bare, branch, '%P')).toBe(previousTip);
      expect(fileAt(host.bare, branch, 'greeting.txt')).toBe(`hello\nedited by run ${runId}\n`);
      expect(trailer(host.bare, branch, 'Run-Id')).toBe(runId);
      const events = await server.events(runId);
      expect(events.some((e) => e.kind === 'workspace' && e.text.includes(`work branch ${branch}`))).toBe(true);

      // Still exactly one pull request, found and updated (not a refused second create), its body now naming the new run.
      expect(events.some((e) => e.kind === 'publish' && / updated$/.test(e.text))).toBe(true);
      const prs = prsOf(host, branch);
      expect(prs).toHaveLength(1);
      expect(prs[0]!.number).toBe(before!.number);
      expect(prs[0]!.body).toContain(runId);
      expect(prs[0]!.body).not.toContain(firstRun);

      // The record moved: the new run shows it, the first no longer does.
      const rows = (await server.db.query<{ run_id: string }>('SELECT run_id FROM pull_requests WHERE ticket = $1', [ticket])).rows;
      expect(rows).toEqual([{ run_id: runId }]);
      const [recorded] = (await server.get<RunView>(`/api/runs/${runId}`)).body.pullRequests;
      expect(recorded?.number).toBe(before!.number);
      expect((await server.get<RunView>(`/api/runs/${firstRun}`)).body.pullRequests).toEqual([]);

      // A comment of its own lists it again, before the done status.
      expect(await commentWith(ticket, runId)).toContain(recorded!.url);
      await commentBeforeStatus(ticket, since);
      await doneShown(ticket);
    });

    it('a failing run pushes a wip commit, says so on the ticket, and the next run starts from it', async () => {
      const ticket = TICKETS.broken;
      const branch = `service/${ticket}`;
      const base = branchTip(host.bare, 'main');
      const failed = await run('shop', ticket, 'broken');
      expect(failed.state).toBe('failed');
      expect(failed.error).toContain('exit 1');
      expect(failed.error).toContain(`work in progress was pushed to branch ${branch}`);

      expect(show(host.bare, branch, '%P')).toBe(base);
      expect(show(host.bare, branch, '%s')).toBe(`[wip] broken run ${failed.runId}`);
      expect(trailer(host.bare, branch, 'Run-Id')).toBe(failed.runId);
      expect(trailer(host.bare, branch, 'Pipeline')).toBe('broken');
      expect(trailer(host.bare, branch, 'Failed-Step')).toBe('exit 1');
      expect(show(host.bare, branch, '%an <%ae>')).toBe(`${GIT_IDENTITY.author_name} <${GIT_IDENTITY.author_email}>`);
      expect(fileAt(host.bare, branch, 'progress.txt')).toBe('half done\n');
      expect(prsOf(host, branch)).toEqual([]); // a failed run opens no pull request

      const comment = await commentWith(ticket, failed.runId);
      expect(comment).toContain(branch);
      await eventually(() => (host.labels(ticket).includes('service:failed') ? true : undefined), 15_000, 'service:failed');

      // The ticket's next run gets the wip commit's tree, finishes the work and publishes on top of it.
      const wip = branchTip(host.bare, branch);
      const next = await run('shop', ticket, 'resume');
      expect({ state: next.state, error: next.error }).toEqual({ state: 'succeeded', error: null });
      const events = await server.events(next.runId);
      expect(events.filter((e) => e.kind === 'stdout').map((e) => e.text)).toContain('half done');
      expect(events.some((e) => e.kind === 'workspace' && e.text.includes(`work branch ${branch}`))).toBe(true);
      expect(show(host.bare, branch, '%P')).toBe(wip);
      expect(show(host.bare, branch, '%s')).toBe(`resume: Half-done work (${ticket})`);
      expect(fileAt(host.bare, branch, 'progress.txt')).toBe('all done\n');
      const prs = prsOf(host, branch);
      expect(prs).toHaveLength(1);
      expect(prs[0]!.body).toContain(next.runId);
      await doneShown(ticket);
    });

    it('a multi-repository run opens one pull request per repository, each listing the other', async () => {
      const ticket = TICKETS.multi;
      const branch = `service/${ticket}`;
      const since = host.standIn.requests.length;
      const { runId, state, error } = await run('duo', ticket, 'greet');
      expect({ state, error }).toEqual({ state: 'succeeded', error: null });

      expect(fileAt(host.bare, branch, 'greeting.txt')).toBe('hello\n');
      expect(fileAt(second.bare, branch, 'greeting.txt')).toBe('hello\n');
      const [web] = prsOf(host, branch);
      const [api] = prsOf(second, branch);
      expect(prsOf(host, branch)).toHaveLength(1);
      expect(prsOf(second, branch)).toHaveLength(1);

      const resource = (await server.get<RunView>(`/api/runs/${runId}`)).body;
      const urls = Object.fromEntries(resource.pullRequests.map((p) => [p.repo, p.url]));
      expect(Object.keys(urls).sort()).toEqual(['shop-api', 'shop-web']);
      expect(web!.body).toContain(urls['shop-api']);
      expect(web!.body).not.toContain(urls['shop-web']);
      expect(api!.body).toContain(urls['shop-web']);
      expect(api!.body).not.toContain(urls['shop-api']);

      const comment = await commentWith(ticket, runId);
      expect(comment).toContain(urls['shop-web']);
      expect(comment).toContain(urls['shop-api']);
      await commentBeforeStatus(ticket, since);
      await doneShown(ticket);
    });

    it('refuses to push a change that adds a secret, naming the file and the rule but not the value', async () => {
      const ticket = TICKETS.leak;
      const refs = () => git(['for-each-ref', '--format=%(refname) %(objectname)'], { cwd: host.bare });
      const before = refs();
      const { runId, state, error } = await run('shop', ticket, 'leak');
      expect(state).toBe('failed');
      expect(error).toContain('shop-web');
      expect(error).toContain('leak.txt line 1 (rule github-token)');
      expect(error).toContain('creds.b64 line 1 (rule configured-secret)');
      const planted = [`ghp_${'a'.repeat(36)}`, Buffer.from(`${host.gitUser}:${token}`).toString('base64')];
      for (const value of [...planted, token]) expect(error).not.toContain(value);

      expect(refs()).toBe(before); // nothing new on the remote
      expect(branchTip(host.bare, `service/${ticket}`)).toBeNull();
      expect(prsOf(host, `service/${ticket}`)).toEqual([]);

      const comment = await commentWith(ticket, runId);
      expect(comment).toContain('leak.txt');
      for (const value of [...planted, token]) expect(comment).not.toContain(value);
      for (const { text } of await server.events(runId)) for (const value of planted) expect(text).not.toContain(value);
    });

    it('gives the sandbox no credential to find, and no event anywhere carries one', async () => {
      const { runId, state, error } = await run('shop', TICKETS.snoop, 'snoop');
      expect({ state, error }).toEqual({ state: 'succeeded', error: null });
      const out = (await server.events(runId)).filter((e) => e.kind === 'stdout').map((e) => e.text);
      expect(out).toContain('grep exit 1'); // grep found the token in no file of the tree or HOME
      expect(out).toContain('cat .git/config exit 1'); // no .git in the tree
      expect(out.some((line) => line.startsWith('SERVICE_RUN_ID='))).toBe(true); // env did print
      expect(out).toContain('README.md'); // the tree did arrive (ls -A)

      // Every event of every run of this server (the leak's, the failures', this one's).
      const texts = await server.allEventTexts();
      expect(texts.length).toBeGreaterThan(50);
      const forms = [token, Buffer.from(token).toString('base64'), Buffer.from(`${host.gitUser}:${token}`).toString('base64')];
      for (const text of texts) {
        for (const form of forms) expect(text).not.toContain(form);
        expect(scrubSecrets(text, [token])).toBe(text); // nor any encoding the scrubber knows
      }
      for (const body of [...host.pullRequests(), ...second.pullRequests()].map((pr) => pr.body)) expect(scrubSecrets(body, [token])).toBe(body);

      // Nor did the server's own git leave it on disk: mirrors, scratch checkouts, git's HOME.
      for (const dir of ['git-mirrors', 'workspaces', 'git-home']) {
        for (const file of filesUnder(join(server.dataDir, dir))) {
          const content = readFileSync(file, 'latin1');
          for (const form of forms) expect(content, file).not.toContain(form);
        }
      }
    });

    describe('error paths', () => {
      it('credentials refused: the run fails naming the repository and its auth_secret', async () => {
        const { state, error } = await run('err-auth', 'AUTH-1', 'greet');
        expect(state).toBe('failed');
        expect(error).toMatch(/repository err-auth: fetching failed \(credentials\)/);
        expect(error).toMatch(/refused the repository's auth_secret: check that the token is valid/);
        expect(error).not.toContain(WRONG_TOKEN);
      });

      it('credentials refused by the API: the run fails naming the repository and its auth_secret', async () => {
        const { state, error } = await run('err-auth-api', 'AUTH-2', 'greet');
        expect(state).toBe('failed');
        expect(error).toMatch(/reading the default branch failed: the host answered 401: .*repository err-auth-api/);
        expect(error).toMatch(/auth_secret of repository err-auth-api is valid/);
        expect(error).not.toContain(WRONG_TOKEN);
      });

      it('protected work branch: the push is declined and the run fails naming the protection', async () => {
        protectBranch(host.bare, 'service/PROT-1');
        const { state, error } = await run('err-protected', 'PROT-1', 'greet');
        expect(state).toBe('failed');
        expect(error).toMatch(/repository err-protected: pushing service\/PROT-1 failed \(protected\)/);
        expect(error).toContain("allow the service's user to push to the branch");
        expect(branchTip(host.bare, 'service/PROT-1')).toBeNull();
      });

      it('unreachable remote: the run fails naming the repository and what to check', async () => {
        const { state, error } = await run('err-down', 'DOWN-1', 'greet');
        expect(state).toBe('failed');
        expect(error).toMatch(/repository err-down: fetching failed \(unreachable\)/);
        expect(error).toMatch(/check the url, the network and the host's status/);
      });

      it('work branch moved on the remote during the run: the push is refused, never forced', async () => {
        const branch = `service/${RACE_TICKET}`;
        const { state, error } = await run('err-race', RACE_TICKET, 'race');
        expect(state).toBe('failed');
        expect(error).toMatch(new RegExp(`repository err-race: pushing ${branch} failed \\(diverged\\)`));
        expect(error).toContain('re-run the ticket to start from the new tip');
        expect(branchTip(host.bare, branch)).toBe(raceTip); // theirs stands
      });

      const recorded = async (project: string, ticket: string) =>
        (await server.db.query<{ run_id: string; repo: string; number: number; state: string }>(
          'SELECT run_id, repo, number, state FROM pull_requests WHERE project = $1 AND ticket = $2 ORDER BY repo', [project, ticket])).rows;

      it('one repository of several protected: the others are still pushed and proposed, and the run fails naming it', async () => {
        const ticket = ERROR_TICKETS.partial;
        const branch = `service/${ticket}`;
        protectBranch(host.bare, branch); // the FIRST repository: the second must not be given up because of it
        const apiBase = branchTip(second.bare, 'main');
        const { runId, state, error } = await run('err-partial', ticket, 'greet');
        expect(state).toBe('failed');
        expect(error).toMatch(new RegExp(`repository partial-web: pushing service/${ticket} failed \\(protected\\)`));
        expect(error).toContain("allow the service's user to push to the branch");
        expect(error).not.toContain('partial-api');
        expect(error).not.toContain('without a pull request'); // the pushed one got its pull request
        expect(error).not.toContain(token);

        // The protected repository: nothing on the remote, no pull request.
        expect(branchTip(host.bare, branch)).toBeNull();
        expect(prsOf(host, branch)).toEqual([]);

        // The other: its change is on its work branch and proposed.
        expect(show(second.bare, branch, '%P')).toBe(apiBase);
        expect(fileAt(second.bare, branch, 'greeting.txt')).toBe('hello\n');
        expect(trailer(second.bare, branch, 'Run-Id')).toBe(runId);
        expect(branchTip(second.bare, 'main')).toBe(apiBase);
        const prs = prsOf(second, branch);
        expect(prs).toHaveLength(1);
        expect(prs[0]).toMatchObject({ base: 'main', open: true });
        expect(prs[0]!.body).toContain(runId);

        // Recorded with the run, for that repository only.
        expect(await recorded('err-partial', ticket)).toEqual([{ run_id: runId, repo: 'partial-api', number: prs[0]!.number, state: 'open' }]);
        const resource = (await server.get<RunView>(`/api/runs/${runId}`)).body;
        expect(resource.state).toBe('failed');
        expect(resource.pullRequests).toEqual([expect.objectContaining({ repo: 'partial-api', number: prs[0]!.number, state: 'open' })]);
        const events = await server.events(runId);
        expect(events.some((e) => e.kind === 'publish' && e.text.startsWith('partial-api: ') && e.text.includes(`pushed to ${branch}`))).toBe(true);
        expect(events.some((e) => e.kind === 'publish' && e.text.startsWith('partial-api: pull request ') && e.text.endsWith(' opened'))).toBe(true);
      });

      it('the host refuses to open the pull request: the run fails naming the repository, the change stays on the work branch', async () => {
        const ticket = ERROR_TICKETS.refused;
        const branch = `service/${ticket}`;
        const base = branchTip(host.bare, 'main');
        const prsBefore = host.pullRequests().length;
        host.standIn.failNext(1, { ...PULL_REQUEST_REFUSAL[kind], match: isPullRequestCreate });
        const since = host.standIn.requests.length;
        const { runId, state, error } = await run('err-pr-refused', ticket, 'greet');
        expect(state).toBe('failed');
        expect(error).toMatch(/opening the pull request failed: the host answered 403: .*repository err-pr-refused/);
        expect(error).toContain('check that the auth_secret of repository err-pr-refused is valid and may open pull requests');
        expect(error).toMatch(new RegExp(`the change is on branch service/${ticket} of err-pr-refused without a pull request; the next run resumes from it$`));
        expect(error).not.toContain(token);

        // The create was asked for exactly once, refused (the fault was used up), and not retried around.
        const creates = host.standIn.requests.slice(since).filter(isPullRequestCreate);
        expect(creates).toHaveLength(1);
        expect(prsOf(host, branch)).toEqual([]);
        expect(host.pullRequests()).toHaveLength(prsBefore);
        expect(await recorded('err-pr-refused', ticket)).toEqual([]);
        expect((await server.get<RunView>(`/api/runs/${runId}`)).body.pullRequests).toEqual([]);

        // The work branch was pushed: the run's commit, on top of main.
        expect(show(host.bare, branch, '%P')).toBe(base);
        expect(show(host.bare, branch, '%s')).toBe(`greet: Ticket ${ticket} (${ticket})`); // a complete commit, not a wip one
        expect(trailer(host.bare, branch, 'Run-Id')).toBe(runId);
        expect(fileAt(host.bare, branch, 'greeting.txt')).toBe('hello\n');
        expect(branchTip(host.bare, 'main')).toBe(base);
      });

      it('a repository without auth_secret: the run fails before any step, naming the repository and the project', async () => {
        const ticket = ERROR_TICKETS.noSecret;
        const { runId, state, error } = await run('err-no-secret', ticket, 'greet');
        expect(state).toBe('failed');
        expect(error).toBe('repository err-no-secret has no auth_secret: the server cannot fetch its tree; set auth_secret for it in project err-no-secret');
        const events = await server.events(runId);
        expect(events.filter((e) => e.kind === 'step-started')).toEqual([]);
        expect(events.filter((e) => e.kind === 'workspace')).toEqual([]);
        expect(events.some((e) => e.kind === 'run-failed')).toBe(true);
        expect(branchTip(host.bare, `service/${ticket}`)).toBeNull();
        expect(await recorded('err-no-secret', ticket)).toEqual([]);
      });

      it('leaves no scratch checkout behind once the runs have ended and their removals behind the end are done', async () => {
        // A run's end does not wait for its scratch repositories to go (the mirror may still be reading one).
        await server.app.get(WorkspacesService).repositories.settled();
        expect(filesUnder(join(server.dataDir, 'workspaces'))).toEqual([]);
      });
    });
  });
}
