import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandReplier } from '../../src/commands/command-replier.service.js';
import { Platform } from '../../src/platforms/platform.js';
import { CONTEXT_FILES } from '../agent/support/code-scenarios.js';
import { commitFiles } from '../stand-ins/git-repositories.js';
import { GitLabRole } from '../stand-ins/gitlab-members.js';
import type { GitLabStandIn } from '../stand-ins/gitlab-stand-in.js';
import { sendWire } from '../webhooks/support/webhook-harness.js';
import { type CodeHost, startCodeHost } from '../workspaces/support/code-hosts.js';
import { GIT_IDENTITY } from '../workspaces/support/publish-config.js';
import { PublishServer } from '../workspaces/support/publish-server.js';
import { type GitLabUserRef, gitlabDelivery, mergeRequestNote, mergeRequestUpdate } from './support/gitlab-acts.js';

/**
 * Commands and review acts on GitLab through the whole server: the documented Note Hook and
 * Merge Request Hook payloads, write access through the members API (a group's Developer, a
 * Reporter, a failed lookup, the verdict remembered), and a reviewer's Request changes on a
 * service merge request read from the host's own system note.
 */
const TEXT = 'text/plain; charset=utf-8';

describe('pull-request commands on GitLab', () => {
  const token = `gl-cmd-${randomBytes(8).toString('hex')}`;
  let root: string;
  let host: CodeHost;
  let gl: GitLabStandIn;
  let server: PublishServer;
  let webUrl: string;
  const users: Record<'dev' | 'reporter' | 'maintainer' | 'stranger', GitLabUserRef> = {
    dev: { username: 'devon', id: 301 }, reporter: { username: 'rita', id: 302 }, maintainer: { username: 'mara', id: 303 }, stranger: { username: 'sam', id: 304 },
  };
  const mrs = { feature: 0, service: 0 };

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'commands-gl-'));
    host = await startCodeHost(Platform.GitLab, root, token, 'app');
    gl = host.standIn as GitLabStandIn;
    commitFiles(host.bare, 'main', CONTEXT_FILES, 'Add the contexts');
    commitFiles(host.bare, 'feature', { 'src/a.ts': 'export const a = 1;\n' }, 'A feature', 'main');
    commitFiles(host.bare, 'service/41', { 'src/t41.ts': 'export const t = 41;\n' }, 'code: ticket 41', 'main');
    for (const ticket of ['41', '42']) host.addTicket(ticket, `Ticket ${ticket}`, `Do ticket ${ticket}.`);
    mrs.feature = host.openPullRequest({ head: 'feature', title: 'Feature' });
    mrs.service = host.openPullRequest({ head: 'service/41', title: 'Ticket 41', author: gl.username });
    for (const user of Object.values(users)) gl.members.addUser(user.username, user.id);
    gl.members.addGroupMember('fin', users.dev.username, GitLabRole.Developer);
    gl.members.addProjectMember(users.reporter.username, GitLabRole.Reporter);
    gl.members.addProjectMember(users.maintainer.username, GitLabRole.Maintainer);
    webUrl = `${gl.url}/fin/app`;
    server = await PublishServer.boot({
      git: GIT_IDENTITY,
      sandbox: { backend: 'in-process', cpu: 1, memory: '1Gi' },
      projects: { app: { ...host.trackerConfig('done', 'code'), pr_commands: { enabled: true }, repos: [host.repoEntry()] } },
    });
  }, 90_000);

  afterAll(async () => {
    await server?.close();
    await host?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const note = (iid: number, head: string, body: string, by: GitLabUserRef, options?: { id?: number; system?: boolean }) =>
    sendWire(server.app, gitlabDelivery('Note Hook', mergeRequestNote(webUrl, gl.projectId, iid, head, body, by, options)));
  const replies = async (iid: number) => {
    await server.app.get(CommandReplier).idle();
    return gl.pullRequest(iid).discussions.flatMap((d) => d.notes).filter((n) => n.username === gl.username && !n.system).map((n) => n.body);
  };
  const runsOf = async (where: string, params: unknown[]) =>
    (await server.db.query<{ id: string; state: string; pipeline: string; ticket: string | null; instructions: string | null }>(
      `SELECT id, state, pipeline, ticket, instructions FROM runs WHERE ${where} ORDER BY created_at`, params)).rows;
  const cancelAll = async () => {
    for (const run of await runsOf(`state IN ('queued', 'running')`, [])) await server.app.inject({ method: 'POST', url: `/api/runs/${run.id}/cancel` });
  };

  it('grants a Developer through a group and remembers the verdict: two commands, one members lookup', async () => {
    const before = gl.members.calls.members;
    expect(await note(mrs.feature, 'feature', '/sa review', users.dev)).toEqual({ status: 202, body: `Accepted: app#${mrs.feature} in app`, contentType: TEXT });
    await cancelAll();
    expect(await note(mrs.feature, 'feature', '/serviceagent security-scan', users.dev)).toEqual({ status: 202, body: `Accepted: app#${mrs.feature} in app`, contentType: TEXT });
    expect(gl.members.calls.members - before).toBe(1);
    expect((await runsOf(`target ->> 'number' = $1`, [String(mrs.feature)])).map((r) => r.pipeline)).toEqual(['pr-review', 'security-scan']);
    const answers = await replies(mrs.feature);
    expect(answers.filter((a) => a.includes(`for merge request`) || a.includes(`for pull request #${mrs.feature}`))).toHaveLength(2);
    await cancelAll();
  });

  it('refuses a Reporter and a failed lookup, on the merge request, and remembers only the definite refusal', async () => {
    expect(await note(mrs.feature, 'feature', '/sa review', users.reporter)).toEqual({ status: 200, body: 'Rejected: NoWriteAccess', contentType: TEXT });
    expect((await replies(mrs.feature)).at(-1)).toContain('rita needs write access');
    gl.failNext(1, { status: 500, match: (req) => req.path.includes('/members/all/') });
    expect(await note(mrs.feature, 'feature', '/sa review', users.maintainer)).toEqual({ status: 200, body: 'Rejected: NoWriteAccess', contentType: TEXT });
    expect((await replies(mrs.feature)).at(-1)).toContain('could not check write access');
    // The failure was not remembered: the host answers now, and the maintainer is granted.
    expect(await note(mrs.feature, 'feature', '/sa review', users.maintainer)).toEqual({ status: 202, body: `Accepted: app#${mrs.feature} in app`, contentType: TEXT });
    await cancelAll();
  });

  it('a Developer\'s Request changes on a service merge request starts a rework from the host\'s system note; an approval since withdraws it; the author never counts', async () => {
    gl.addReviewer(mrs.service, users.dev.username);
    gl.addReviewer(mrs.service, users.reporter.username);
    const update = () => sendWire(server.app, gitlabDelivery('Merge Request Hook', mergeRequestUpdate(webUrl, gl.projectId, mrs.service, 'service/41')));

    // A Reporter's request is no reviewer's with write access: refused, nothing starts.
    gl.reviewAct(mrs.service, users.reporter.username, 'requested_changes');
    expect(await update()).toEqual({ status: 200, body: 'Rejected: NoWriteAccess', contentType: TEXT });
    // An update with no new request (the same note again) starts nothing.
    expect((await update()).body).toMatch(/^Filtered: /);

    gl.reviewAct(mrs.service, users.dev.username, 'requested_changes');
    expect(await update()).toEqual({ status: 202, body: 'Accepted: 41 in app', contentType: TEXT });
    const [rework] = await runsOf('ticket = $1', ['41']);
    expect(rework).toMatchObject({ pipeline: 'code', instructions: null });
    expect((await replies(mrs.service)).at(-1)).toContain('Rework of ticket `41`');
    await cancelAll();

    // Requested, then approved before the delivery was read: withdrawn.
    gl.reviewAct(mrs.service, users.dev.username, 'requested_changes');
    gl.reviewAct(mrs.service, users.dev.username, 'approved');
    expect((await update()).body).toMatch(/^Filtered: /);
    expect(await runsOf('ticket = $1', ['41'])).toHaveLength(1);

    // The author's own note (the service's account) never starts anything.
    expect((await note(mrs.service, 'service/41', '/sa\n<!-- pipeline-service -->', { username: gl.username, id: 999 })).body).toBe("Filtered: the service's own note");
    expect(await runsOf('ticket = $1', ['41'])).toHaveLength(1);
  });

  it('a Developer\'s bare command on the service merge request starts the next attempt with its instructions', async () => {
    expect(await note(mrs.service, 'service/41', '/sa\nkeep the old export too', users.dev)).toEqual({ status: 202, body: 'Accepted: 41 in app', contentType: TEXT });
    expect((await runsOf('ticket = $1', ['41'])).at(-1)).toMatchObject({ pipeline: 'code', instructions: 'keep the old export too' });
    await cancelAll();
  });
});
