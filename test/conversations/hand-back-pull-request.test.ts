import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HandBackPullRequestNotifier } from '../../src/conversations/hand-back/hand-back-pull-requests.notifier.js';
import { Platform } from '../../src/platforms/platform.js';
import { SERVICE_MARKER } from '../../src/platforms/service-marker.js';
import { pullRequestComment, wire } from '../commands/support/github-acts.js';
import { gitlabDelivery, mergeRequestNote } from '../commands/support/gitlab-acts.js';
import { loadFixture } from '../fixtures/payload-fixtures.js';
import { identityIdOf } from '../stand-ins/azure-devops-pull-request-reviews.js';
import { GitPermission } from '../stand-ins/azure-devops-security.js';
import type { AzureDevOpsStandIn } from '../stand-ins/azure-devops-stand-in.js';
import { commitFiles } from '../stand-ins/git-repositories.js';
import type { GitHubStandIn } from '../stand-ins/github-stand-in.js';
import { GitLabRole } from '../stand-ins/gitlab-members.js';
import type { GitLabStandIn } from '../stand-ins/gitlab-stand-in.js';
import { eventually } from '../support/eventually.js';
import { blocksOf } from '../support/untrusted-blocks.js';
import { adoWire } from '../webhooks/support/deliveries.js';
import { sendWire } from '../webhooks/support/webhook-harness.js';
import type { HostKind } from '../workspaces/support/code-hosts.js';
import { HandBackBench } from './support/hand-back-server.js';

/**
 * Rule 3 of "Rework on a service pull request", on each code host through the whole server: when
 * a run of a ticket with an open service pull request parks with a question, the hand-back is
 * posted on that pull request too (the service marker and the hand-back marker, once), whether a
 * run of this installation recorded the pull request or the run only finds it on the host from
 * the work branch (one opened before the configuration moved here); a reviewer then answers there
 * (a reply, then a command — on Azure DevOps, whose comments send nothing, a Wait for author
 * vote), which ends the waiting run and starts the rework reading the reply.
 */
type Json = Record<string, unknown>;
const TEXT = 'text/plain; charset=utf-8';
const HOSTS: HostKind[] = [Platform.GitHub, Platform.GitLab, Platform.AzureDevOps];
/** The reviewer with write access on each host. */
const REVIEWER = { github: 'carol', gitlab: 'devon', ado: 'wendy@acme.example' } as const;

describe.each(HOSTS)('a hand-back on the service pull request (%s)', (kind) => {
  let bench: HandBackBench;

  beforeAll(async () => {
    bench = await HandBackBench.start('host', kind);
    if (kind === Platform.GitLab) {
      const gl = bench.host.standIn as GitLabStandIn;
      gl.members.addUser(REVIEWER.gitlab, 301);
      gl.members.addProjectMember(REVIEWER.gitlab, GitLabRole.Developer);
    }
    if (kind === Platform.AzureDevOps) {
      const ado = bench.host.standIn as AzureDevOpsStandIn;
      const contributors = ado.security.addGroup('Contributors');
      ado.security.addMember(contributors, ado.security.addUser(REVIEWER.ado));
      ado.security.setPermission(ado.security.projectToken, contributors, { allow: GitPermission.GenericRead | GitPermission.GenericContribute });
    }
  }, 90_000);

  afterAll(async () => {
    await bench?.stop();
  });

  /** The service account's comments on pull request `number` (GitHub conversation comments, GitLab notes, Azure DevOps thread comments). */
  function serviceNotes(number: number): string[] {
    const standIn = bench.host.standIn;
    switch (kind) {
      case Platform.GitHub: {
        const gh = standIn as GitHubStandIn;
        return gh.pullRequest(number).comments.filter((c) => c.login === gh.login).map((c) => c.body);
      }
      case Platform.GitLab: {
        const gl = standIn as GitLabStandIn;
        return gl.mergeRequests.reviews.notesOf(gl.pullRequest(number)).filter((n) => n.username === gl.username && !n.system).map((n) => n.body);
      }
      case Platform.AzureDevOps: {
        const ado = standIn as AzureDevOpsStandIn;
        return ado.pullRequest(number).threads.flatMap((t) => t.comments).filter((c) => c.uniqueName === ado.uniqueName && !c.isDeleted).map((c) => c.content);
      }
    }
  }

  /** The hand-back of run `runId` on the pull request, once it is there. */
  const handBackOn = (number: number, runId: string) =>
    eventually(() => serviceNotes(number).find((n) => n.includes(`<!-- pipeline-service:hand-back:${runId} -->`)), 15_000, `the hand-back of ${runId} on pull request #${number}`);

  /** A reviewer's reply on the pull request, as the host holds it (what the rework reads). */
  function reply(number: number, body: string): void {
    const at = new Date(Date.now() + 1_000).toISOString();
    switch (kind) {
      case Platform.GitHub: return void (bench.host.standIn as GitHubStandIn).addComment(number, body, REVIEWER.github, at);
      case Platform.GitLab: return void (bench.host.standIn as GitLabStandIn).addMergeRequestNote(number, body, { username: REVIEWER.gitlab, createdAt: at });
      case Platform.AzureDevOps: return void (bench.host.standIn as AzureDevOpsStandIn).addThread(number, body, { uniqueName: REVIEWER.ado, publishedDate: at });
    }
  }

  /** The act that answers from the pull request: a bare `/sa` comment (GitHub, GitLab), a Wait for author vote (Azure DevOps). */
  async function answerAct(number: number, ticket: string): Promise<{ status: number; body: string }> {
    const url = bench.repositoryUrl;
    switch (kind) {
      case Platform.GitHub:
        return sendWire(bench.server.app, wire('issue_comment', pullRequestComment(url, number, '/sa', { login: REVIEWER.github, association: 'COLLABORATOR' })));
      case Platform.GitLab: {
        const gl = bench.host.standIn as GitLabStandIn;
        return sendWire(bench.server.app, gitlabDelivery('Note Hook', mergeRequestNote(url, gl.projectId, number, `service/${ticket}`, '/sa', { username: REVIEWER.gitlab, id: 301 })));
      }
      case Platform.AzureDevOps: {
        const ado = bench.host.standIn as AzureDevOpsStandIn;
        const payload = loadFixture('azure-devops', 'git-pullrequest-updated');
        payload['id'] = randomUUID();
        const resource = payload['resource'] as Json;
        resource['pullRequestId'] = number;
        resource['sourceRefName'] = `refs/heads/service/${ticket}`;
        resource['createdBy'] = { id: identityIdOf(ado.uniqueName), uniqueName: ado.uniqueName, displayName: ado.uniqueName };
        const repository = resource['repository'] as Json;
        repository['remoteUrl'] = url;
        repository['project'] = { ...(repository['project'] as Json), name: 'Shop' };
        resource['reviewers'] = [{ id: identityIdOf(REVIEWER.ado), uniqueName: REVIEWER.ado, displayName: REVIEWER.ado, vote: -5, isContainer: false }];
        return sendWire(bench.server.app, adoWire(payload, { headers: { 'X-Service-Change': 'review-vote' }, authorization: null }));
      }
    }
  }

  /** Claims `code` for the ticket with a model that asks `question`, and waits for the run to park. */
  async function parkWith(ticket: string, match: string, question: string): Promise<string> {
    bench.model.script({ match, turns: [{ toolCalls: [{ name: 'ask', input: { kind: 'question', question } }] }] });
    const runId = await bench.server.claim(kind, 'app', ticket, 'code');
    await bench.parked(runId);
    return runId;
  }

  it('a run that parks posts its question on the pull request an earlier run opened, once, beside the ticket; answering there resumes the ticket', async () => {
    const ticket = '71';
    const title = 'Greet returning visitors';
    bench.host.addTicket(ticket, title, 'Say welcome back.');
    bench.model.script({
      match: title,
      turns: [
        { toolCalls: [{ name: 'write_file', input: { path: 'greeting.txt', content: 'hello\n' } }] },
        { toolCalls: [{ name: 'finish', input: { summary: 'Welcomes visitors.' } }] },
      ],
    });
    expect(await bench.server.run(kind, 'app', ticket, 'code')).toMatchObject({ state: 'succeeded', error: null });
    const pr = bench.host.pullRequests().find((p) => p.head === `service/${ticket}` && p.open);
    expect(pr).toBeDefined();

    bench.host.addComment(ticket, 'Only after a week away. AGAIN-71');
    const asking = await parkWith(ticket, 'AGAIN-71', 'How long is a week away, exactly? QUESTION-71');
    // The ticket has its hand-back comment; the pull request has its own note, with both markers.
    await eventually(() => bench.host.comments(ticket).find((c) => c.includes('QUESTION-71')), 15_000, 'the hand-back on the ticket');
    const note = await handBackOn(pr!.number, asking);
    expect(note.startsWith(SERVICE_MARKER)).toBe(true);
    expect(note).toContain('How long is a week away, exactly? QUESTION-71');
    expect(note).toContain(kind === Platform.AzureDevOps ? 'vote **Wait for author**' : 'then comment `/sa`');

    // Posting again for the same park (a retry, another replica) edits the same note: still one.
    const notifier = bench.server.app.get(HandBackPullRequestNotifier);
    await notifier.postHandBack(asking);
    await notifier.idle();
    expect(serviceNotes(pr!.number).filter((n) => n.includes('QUESTION-71'))).toHaveLength(1);

    // A reviewer replies on the pull request, then acts: the waiting run ends, the rework starts and reads the reply.
    bench.model.script({ match: 'REPLY-71', turns: [{ toolCalls: [{ name: 'finish', input: { summary: 'Seven days.' } }] }] });
    reply(pr!.number, 'Seven days since the last visit. REPLY-71');
    expect(await answerAct(pr!.number, ticket)).toEqual({ status: 202, body: `Accepted: ${ticket} in app`, contentType: TEXT });
    const question = await bench.question(asking);
    expect(question).toMatchObject({ answer_source: 'pull-request', answered_by: expect.any(String) });
    expect(await bench.run(asking)).toMatchObject({ state: 'cancelled' });
    const resumed = String(question!['resumed_run_id']);
    expect(await bench.server.finished(resumed)).toEqual({ state: 'succeeded', error: null });
    const request = await eventually(() => bench.model.modelCalls().find((r) => r.body.includes('REPLY-71')), 20_000, 'the resumed run asks the model');
    expect(request.text).toContain('> How long is a week away, exactly? QUESTION-71');
    expect(blocksOf(request.text).some((b) => b.content.includes('Seven days since the last visit. REPLY-71'))).toBe(true);
  });

  it('a run that parks posts its question on the service pull request it finds on the host, though no run here recorded it', async () => {
    const ticket = '72';
    // Opened by the service's account before the configuration moved to this installation: no pull_requests row.
    commitFiles(bench.host.bare, `service/${ticket}`, { 'farewell.txt': 'bye\n' }, `code: ticket ${ticket}`, 'main');
    bench.host.addTicket(ticket, 'Say goodbye', 'Greet leaving visitors.');
    const author = kind === Platform.GitHub ? (bench.host.standIn as GitHubStandIn).login
      : kind === Platform.GitLab ? (bench.host.standIn as GitLabStandIn).username : (bench.host.standIn as AzureDevOpsStandIn).uniqueName;
    const number = bench.host.openPullRequest({ head: `service/${ticket}`, title: 'Say goodbye', author });
    expect((await bench.server.db.query('SELECT 1 FROM pull_requests WHERE ticket = $1', [ticket])).rows).toHaveLength(0);

    const asking = await parkWith(ticket, 'Greet leaving visitors', 'Goodbye or farewell? QUESTION-72');
    await eventually(() => bench.host.comments(ticket).find((c) => c.includes('QUESTION-72')), 15_000, 'the hand-back on the ticket');
    const note = await handBackOn(number, asking);
    expect(note).toContain('Goodbye or farewell? QUESTION-72');
  });

  it('a pull request that refuses the note leaves the ticket\'s hand-back and the waiting run as they are; the run\'s events say why', async () => {
    const ticket = '73';
    commitFiles(bench.host.bare, `service/${ticket}`, { 'night.txt': 'night\n' }, `code: ticket ${ticket}`, 'main');
    bench.host.addTicket(ticket, 'Greet at midnight', 'Say good night.');
    const number = bench.host.openPullRequest({ head: `service/${ticket}`, title: 'Greet at midnight' });
    // The host refuses every write of the pull request's note (a locked conversation, say); the ticket's comment goes through.
    bench.host.standIn.failNext(100, {
      status: 403, body: { message: 'Forbidden' },
      match: (req) => req.method !== 'GET' && /pipeline-service:hand-back:[^]*QUESTION-73/.test(JSON.stringify(req.body ?? '')),
    });

    const asking = await parkWith(ticket, 'Say good night', 'Which timezone? QUESTION-73');
    await eventually(() => bench.host.comments(ticket).find((c) => c.includes('QUESTION-73')), 15_000, 'the hand-back on the ticket');
    const why = await eventually(async () => (await bench.server.events(asking)).find((e) => e.kind === 'hand-back'), 15_000, 'the hand-back event');
    expect(why.text).toMatch(new RegExp(`^the hand-back could not be posted on pull request #${number} of greeter: .*403`));
    expect(why.text).not.toContain(bench.host.token);
    expect(serviceNotes(number).filter((n) => n.includes('QUESTION-73'))).toEqual([]);
    expect((await bench.run(asking)).state).toBe('parked');
    expect(await bench.question(asking)).toMatchObject({ answer: null });
  });
});
