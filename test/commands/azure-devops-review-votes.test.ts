import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandReplier } from '../../src/commands/command-replier.service.js';
import { Platform } from '../../src/platforms/platform.js';
import { CONTEXT_FILES } from '../agent/support/code-scenarios.js';
import { loadFixture } from '../fixtures/payload-fixtures.js';
import { identityIdOf } from '../stand-ins/azure-devops-pull-request-reviews.js';
import { GitPermission } from '../stand-ins/azure-devops-security.js';
import type { AzureDevOpsStandIn } from '../stand-ins/azure-devops-stand-in.js';
import { commitFiles } from '../stand-ins/git-repositories.js';
import { adoWire } from '../webhooks/support/deliveries.js';
import { sendWire } from '../webhooks/support/webhook-harness.js';
import { type CodeHost, startCodeHost } from '../workspaces/support/code-hosts.js';
import { GIT_IDENTITY } from '../workspaces/support/publish-config.js';
import { PublishServer } from '../workspaces/support/publish-server.js';

/**
 * Wait for author on an Azure DevOps service pull request through the whole server: the
 * documented `git.pullrequest.updated` payload under a review-vote subscription
 * (`X-Service-Change: review-vote`), write access through the security API (Contribute through a
 * group, and none), the author never a reviewer, and a vote counted only when it changes.
 */
const TEXT = 'text/plain; charset=utf-8';
type Json = Record<string, unknown>;

describe('review votes on Azure DevOps', () => {
  const token = `ado-cmd-${randomBytes(8).toString('hex')}`;
  let root: string;
  let host: CodeHost;
  let ado: AzureDevOpsStandIn;
  let server: PublishServer;
  let service = 0;
  const writer = 'wendy@acme.example';
  const reader = 'ray@acme.example';

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'commands-ado-'));
    host = await startCodeHost(Platform.AzureDevOps, root, token, 'app');
    ado = host.standIn as AzureDevOpsStandIn;
    commitFiles(host.bare, 'main', CONTEXT_FILES, 'Add the contexts');
    commitFiles(host.bare, 'service/61', { 'src/t61.ts': 'export const t = 61;\n' }, 'code: ticket 61', 'main');
    host.addTicket('61', 'Ticket 61', 'Do ticket 61.');
    service = host.openPullRequest({ head: 'service/61', title: 'Ticket 61', author: ado.uniqueName });
    const contributors = ado.security.addGroup('Contributors');
    ado.security.addMember(contributors, ado.security.addUser(writer));
    ado.security.addUser(reader);
    ado.security.setPermission(ado.security.projectToken, contributors, { allow: GitPermission.GenericRead | GitPermission.GenericContribute });
    server = await PublishServer.boot({
      git: GIT_IDENTITY,
      sandbox: { backend: 'in-process', cpu: 1, memory: '1Gi' },
      projects: { app: { ...host.trackerConfig('Resolved', 'code'), repos: [host.repoEntry()] } },
    });
  }, 90_000);

  afterAll(async () => {
    await server?.close();
    await host?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  /** The documented payload with the service pull request, its author and these reviewers' votes. */
  const voteDelivery = (votes: Record<string, number>, author = ado.uniqueName) => {
    const payload = loadFixture('azure-devops', 'git-pullrequest-updated');
    payload['id'] = randomUUID();
    const resource = payload['resource'] as Json;
    resource['pullRequestId'] = service;
    resource['sourceRefName'] = 'refs/heads/service/61';
    resource['createdBy'] = { id: identityIdOf(author), uniqueName: author, displayName: author };
    const repository = resource['repository'] as Json;
    repository['remoteUrl'] = (host.repoEntry() as { url: string }).url;
    repository['project'] = { ...(repository['project'] as Json), name: 'Shop' };
    resource['reviewers'] = Object.entries(votes).map(([uniqueName, vote]) => ({ id: identityIdOf(uniqueName), uniqueName, displayName: uniqueName, vote, isContainer: false }));
    return sendWire(server.app, adoWire(payload, { headers: { 'X-Service-Change': 'review-vote' }, authorization: null }));
  };
  const replies = async () => {
    await server.app.get(CommandReplier).idle();
    return ado.pullRequest(service).threads.flatMap((t) => t.comments).filter((c) => c.uniqueName === ado.uniqueName).map((c) => c.content);
  };
  const runs = async () => (await server.db.query<{ id: string; state: string; instructions: string | null }>(
    `SELECT id, state, instructions FROM runs WHERE ticket = '61' ORDER BY created_at`)).rows;
  const cancelAll = async () => {
    for (const run of await runs()) if (['queued', 'running'].includes(run.state)) await server.app.inject({ method: 'POST', url: `/api/runs/${run.id}/cancel` });
  };

  it('a reviewer without Contribute votes Wait for author: refused on the pull request, nothing starts', async () => {
    expect(await voteDelivery({ [reader]: -5 })).toEqual({ status: 200, body: 'Rejected: NoWriteAccess', contentType: TEXT });
    expect((await replies()).at(-1)).toContain('ray@acme.example needs write access');
    expect(await runs()).toEqual([]);
  });

  it('the author\'s own vote never counts; a contributor\'s Wait for author starts a rework once, and again only after a reset', async () => {
    expect((await voteDelivery({ [reader]: -5, [ado.uniqueName]: -5 })).body).toMatch(/^Filtered: no reviewer changed their vote/);
    expect(await voteDelivery({ [reader]: -5, [writer]: -5 })).toEqual({ status: 202, body: 'Accepted: 61 in app', contentType: TEXT });
    expect(await runs()).toHaveLength(1);
    expect((await replies()).at(-1)).toContain('Rework of ticket `61`');
    await cancelAll();
    // The same votes delivered again (another update) change nothing.
    expect((await voteDelivery({ [reader]: -5, [writer]: -5 })).body).toMatch(/^Filtered: no reviewer changed their vote/);
    // Reset, then Wait for author again: a second rework.
    expect((await voteDelivery({ [reader]: -5, [writer]: 0 })).body).toMatch(/^Filtered: /);
    expect(await voteDelivery({ [reader]: -5, [writer]: -5 })).toEqual({ status: 202, body: 'Accepted: 61 in app', contentType: TEXT });
    expect(await runs()).toHaveLength(2);
    await cancelAll();
  });
});
