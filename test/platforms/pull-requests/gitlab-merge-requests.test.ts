import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitLabMergeRequestsClient } from '../../../src/platforms/gitlab/gitlab-merge-requests.client.js';
import { TrackerError } from '../../../src/platforms/tracker-client.js';
import { GitLabStandIn } from '../../stand-ins/gitlab-stand-in.js';

const TOKEN = 'glpat-MergeRequestSecret55';
const DRAFT = { head: 'service/BILL-12', base: 'main', title: 'code: Invoices lose cents (BILL-12)', body: '<!-- pipeline-service -->\nTicket: BILL-12' };

describe('GitLabMergeRequestsClient against the GitLab stand-in', () => {
  let standIn: GitLabStandIn;
  let client: GitLabMergeRequestsClient;

  const make = (token = TOKEN): GitLabMergeRequestsClient =>
    new GitLabMergeRequestsClient({
      repoUrl: 'https://gitlab.example/fin/billing.git',
      apiUrl: standIn.apiUrl,
      token,
      repository: 'billing',
      http: { sleep: async () => {}, maxAttempts: 2 },
    });

  beforeEach(async () => {
    standIn = await new GitLabStandIn(TOKEN).start();
    standIn.addBranch('service/BILL-12');
    client = make();
  });
  afterEach(() => standIn.stop());

  it('reads the default branch from the project, addressed by its URL-encoded path', async () => {
    standIn.defaultBranch = 'develop';
    await expect(client.defaultBranch()).resolves.toBe('develop');
    const req = standIn.requests[0]!;
    expect(req.path).toBe('/api/v4/projects/fin%2Fbilling');
    expect(req.headers['private-token']).toBe(TOKEN);
  });

  it('creates a merge request (iid as number, web_url as url), then finds it open', async () => {
    standIn.addIssue(1); // issues and merge requests count their iids apart
    const { pullRequest, created } = await client.create(DRAFT);
    expect(created).toBe(true);
    expect(pullRequest).toEqual({ number: 1, url: 'https://gitlab.example/fin/billing/-/merge_requests/1', state: 'open', ...DRAFT });
    expect(standIn.requests.at(-1)!.body).toEqual({
      source_branch: DRAFT.head,
      target_branch: 'main',
      title: DRAFT.title,
      description: DRAFT.body,
      remove_source_branch: false,
    });

    await expect(client.findOpen(DRAFT.head, 'main')).resolves.toEqual(pullRequest);
    const find = standIn.requests.at(-1)!;
    expect(find.path).toBe('/api/v4/projects/fin%2Fbilling/merge_requests');
    expect(Object.fromEntries(find.query)).toMatchObject({ state: 'opened', source_branch: DRAFT.head, target_branch: 'main' });
    await expect(client.findOpen(DRAFT.head, 'release')).resolves.toBeNull();
  });

  it('a second create returns the open one after GitLab’s 409', async () => {
    const first = await client.create(DRAFT);
    const second = await client.create({ ...DRAFT, title: 'again' });
    expect(second).toEqual({ pullRequest: first.pullRequest, created: false });
    expect(standIn.pullRequests).toHaveLength(1);
    const refused = standIn.answers.filter((a) => a.method === 'POST').at(-1)!;
    expect(refused).toMatchObject({ status: 409, body: { message: ['Another open merge request already exists for this source branch: !1'] } });
  });

  it('updates title and description', async () => {
    const { pullRequest } = await client.create(DRAFT);
    await expect(client.update(pullRequest.number, { title: 'new title', body: 'new body' })).resolves.toMatchObject({ title: 'new title', body: 'new body', state: 'open' });
    expect(standIn.pullRequest(pullRequest.number)).toMatchObject({ title: 'new title', description: 'new body' });
    expect(standIn.requests.at(-1)).toMatchObject({ method: 'PUT', path: '/api/v4/projects/fin%2Fbilling/merge_requests/1', body: { title: 'new title', description: 'new body' } });
  });

  it('maps merged, closed and locked, and finds none of them as open', async () => {
    const iids: number[] = [];
    for (const head of ['service/1', 'service/2', 'service/3']) {
      standIn.addBranch(head);
      iids.push((await client.create({ ...DRAFT, head })).pullRequest.number);
    }
    standIn.mergePullRequest(iids[0]!);
    standIn.closePullRequest(iids[1]!);
    standIn.lockMergeRequest(iids[2]!);
    const states = await Promise.all(iids.map(async (iid) => (await client.update(iid, { title: 't', body: 'b' })).state));
    expect(states).toEqual(['merged', 'closed', 'closed']);
    await expect(client.findOpen('service/1', 'main')).resolves.toBeNull();
  });

  it('a source branch that does not exist is a TrackerError quoting GitLab', async () => {
    const err = await client.create({ ...DRAFT, head: 'service/404' }).then(unexpected, (e: unknown) => e as TrackerError);
    expect(err).toBeInstanceOf(TrackerError);
    expect(err).toMatchObject({ status: 400, retryable: false });
    expect(err.message).toContain('repository billing');
    expect(err.message).toContain('from service/404 into main');
    expect(err.message).toContain('source_branch does not exist');
    expect(standIn.answers.at(-1)).toMatchObject({ status: 400, body: { message: { source_branch: ['does not exist'] } } });
  });

  it('the same branch as source and target is GitLab’s 422, not a duplicate', async () => {
    const err = await client.create({ ...DRAFT, head: 'main' }).then(unexpected, (e: unknown) => e as TrackerError);
    expect(err).toMatchObject({ status: 422, retryable: false });
    expect(err.message).toContain("You can't use same project/branch for source and target");
  });

  it('a wrong token is a 401 TrackerError naming the repository, without the token', async () => {
    const wrong = 'glpat-WrongMergeRequestToken';
    const err = await make(wrong).findOpen(DRAFT.head, 'main').then(unexpected, (e: unknown) => e as TrackerError);
    expect(err).toMatchObject({ name: 'TrackerError', status: 401, retryable: false });
    expect(err.message).toContain('repository billing');
    expect(err.message).not.toContain(wrong);
  });
});

function unexpected(): never {
  throw new Error('expected the call to fail');
}
