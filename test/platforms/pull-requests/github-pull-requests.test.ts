import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitHubPullRequestsClient } from '../../../src/platforms/github/github-pull-requests.client.js';
import { TrackerError } from '../../../src/platforms/tracker-client.js';
import { GitHubStandIn } from '../../stand-ins/github-stand-in.js';

const TOKEN = 'ghp_PullRequestSecretToken77';
const DRAFT = { head: 'service/42', base: 'main', title: 'code: Checkout rounds twice (42)', body: '<!-- pipeline-service -->\nFixes #42' };

describe('GitHubPullRequestsClient against the GitHub stand-in', () => {
  let standIn: GitHubStandIn;
  let client: GitHubPullRequestsClient;

  const make = (token = TOKEN): GitHubPullRequestsClient =>
    new GitHubPullRequestsClient({
      repoUrl: 'https://github.com/acme/shop-web.git',
      apiUrl: standIn.apiUrl,
      token,
      repository: 'shop-web',
      http: { sleep: async () => {}, maxAttempts: 2 },
    });

  beforeEach(async () => {
    standIn = await new GitHubStandIn(TOKEN).start();
    standIn.addBranch('service/42');
    client = make();
  });
  afterEach(() => standIn.stop());

  it('reads the default branch from the repository', async () => {
    standIn.defaultBranch = 'trunk';
    await expect(client.defaultBranch()).resolves.toBe('trunk');
    const req = standIn.requests[0]!;
    expect(req.path).toBe('/repos/acme/shop-web');
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req.headers['x-github-api-version']).toBe('2022-11-28');
  });

  it('creates a pull request, then finds it open by owner:head and base', async () => {
    standIn.addIssue(42, ['ready-for-agent']); // issues and pull requests share GitHub's numbers
    const { pullRequest, created } = await client.create(DRAFT);
    expect(created).toBe(true);
    expect(pullRequest).toEqual({ number: 43, url: 'https://github.com/acme/shop-web/pull/43', state: 'open', ...DRAFT });
    expect(standIn.requests.at(-1)!.body).toEqual({ title: DRAFT.title, head: 'service/42', base: 'main', body: DRAFT.body });

    await expect(client.findOpen('service/42', 'main')).resolves.toEqual(pullRequest);
    const find = standIn.requests.at(-1)!;
    expect(find.path).toBe('/repos/acme/shop-web/pulls');
    expect(Object.fromEntries(find.query)).toMatchObject({ state: 'open', head: 'acme:service/42', base: 'main' });
    await expect(client.findOpen('service/42', 'release')).resolves.toBeNull();
    await expect(client.findOpen('service/7', 'main')).resolves.toBeNull();
  });

  it('a second create for the same head and base returns the open one after GitHub’s 422', async () => {
    const first = await client.create(DRAFT);
    const second = await client.create({ ...DRAFT, title: 'another title' });
    expect(second).toEqual({ pullRequest: first.pullRequest, created: false });
    expect(standIn.pullRequests).toHaveLength(1);
    const refused = standIn.answers.filter((a) => a.method === 'POST').at(-1)!;
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ message: 'Validation Failed', errors: [{ code: 'custom', message: 'A pull request already exists for acme:service/42.' }] });
  });

  it('updates title and body', async () => {
    const { pullRequest } = await client.create(DRAFT);
    const updated = await client.update(pullRequest.number, { title: 'new title', body: 'new body' });
    expect(updated).toMatchObject({ number: pullRequest.number, title: 'new title', body: 'new body', state: 'open' });
    expect(standIn.pullRequest(pullRequest.number)).toMatchObject({ title: 'new title', body: 'new body' });
    expect(standIn.requests.at(-1)).toMatchObject({ method: 'PATCH', path: `/repos/acme/shop-web/pulls/${pullRequest.number}`, body: { title: 'new title', body: 'new body' } });
  });

  it('maps merged (merged_at set) and closed, and finds neither as open', async () => {
    standIn.addBranch('service/43');
    const merged = (await client.create(DRAFT)).pullRequest;
    const closed = (await client.create({ ...DRAFT, head: 'service/43' })).pullRequest;
    standIn.mergePullRequest(merged.number);
    standIn.closePullRequest(closed.number);
    await expect(client.update(merged.number, { title: 't', body: 'b' })).resolves.toMatchObject({ state: 'merged' });
    await expect(client.update(closed.number, { title: 't', body: 'b' })).resolves.toMatchObject({ state: 'closed' });
    await expect(client.findOpen('service/42', 'main')).resolves.toBeNull();
  });

  it('a head branch that is not on GitHub is a TrackerError saying so', async () => {
    const err = await client.create({ ...DRAFT, head: 'service/404' }).then(unexpected, (e: unknown) => e as TrackerError);
    expect(err).toBeInstanceOf(TrackerError);
    expect(err).toMatchObject({ status: 422, retryable: false });
    expect(err.message).toContain('repository shop-web');
    expect(err.message).toContain('the head branch service/404 is not on GitHub');
    expect(standIn.answers.at(-1)).toMatchObject({ status: 422, body: { errors: [{ field: 'head', code: 'invalid' }] } });
  });

  it('nothing to merge is an error quoting GitHub, not a duplicate', async () => {
    standIn.hasCommitsBetween = () => false;
    const err = await client.create(DRAFT).then(unexpected, (e: unknown) => e as TrackerError);
    expect(err).toMatchObject({ status: 422, retryable: false });
    expect(err.message).toContain('No commits between main and service/42');
    expect(standIn.requests.filter((r) => r.method === 'GET')).toHaveLength(0);
  });

  it('a wrong token is a 401 TrackerError naming the repository, without the token', async () => {
    const wrong = 'ghp_WrongPullRequestToken00';
    const err = await make(wrong).defaultBranch().then(unexpected, (e: unknown) => e as TrackerError);
    expect(err).toMatchObject({ name: 'TrackerError', status: 401, retryable: false });
    expect(err.message).toContain('repository shop-web');
    expect(err.message).toContain('Bad credentials');
    expect(err.message).not.toContain(wrong);
  });
});

function unexpected(): never {
  throw new Error('expected the call to fail');
}
