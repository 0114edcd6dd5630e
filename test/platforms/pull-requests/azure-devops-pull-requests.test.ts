import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AzureDevOpsPullRequestsClient, DESCRIPTION_LIMIT, fitDescription } from '../../../src/platforms/azure-devops/azure-devops-pull-requests.client.js';
import { TrackerError } from '../../../src/platforms/tracker-client.js';
import { AzureDevOpsStandIn } from '../../stand-ins/azure-devops-stand-in.js';

const PAT = 'adoPullRequestPat0123456789';
const DRAFT = { head: 'service/101', base: 'main', title: 'code: Cart badge overflows (101)', body: '<!-- pipeline-service -->\nWork item 101' };
const REPO_PATH = '/acme/Shop/_apis/git/repositories/shop-web';
const WEB = 'https://dev.azure.com/acme/Shop/_git/shop-web';

describe('AzureDevOpsPullRequestsClient against the Azure DevOps stand-in', () => {
  let standIn: AzureDevOpsStandIn;
  let client: AzureDevOpsPullRequestsClient;

  const make = (pat = PAT): AzureDevOpsPullRequestsClient =>
    new AzureDevOpsPullRequestsClient({
      repoUrl: standIn.repositoryWebUrl,
      apiUrl: standIn.organizationUrl,
      pat,
      repository: 'shop-web',
      http: { sleep: async () => {}, maxAttempts: 2 },
    });

  beforeEach(async () => {
    standIn = await new AzureDevOpsStandIn(PAT).start();
    standIn.addBranch('service/101');
    client = make();
  });
  afterEach(() => standIn.stop());

  it('reads the default branch without refs/heads/, with api-version and Basic auth', async () => {
    standIn.defaultBranch = 'develop';
    await expect(client.defaultBranch()).resolves.toBe('develop');
    const req = standIn.requests[0]!;
    expect(req.path).toBe(REPO_PATH);
    expect(req.query.get('api-version')).toBe('7.1');
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from(`:${PAT}`).toString('base64')}`);
  });

  it('creates a pull request (web URL, not the API one), then finds it active', async () => {
    const { pullRequest, created } = await client.create(DRAFT);
    expect(created).toBe(true);
    expect(pullRequest).toEqual({ number: 1, url: `${WEB}/pullrequest/1`, state: 'open', ...DRAFT });
    expect(standIn.requests.at(-1)!.body).toEqual({ sourceRefName: 'refs/heads/service/101', targetRefName: 'refs/heads/main', title: DRAFT.title, description: DRAFT.body });

    await expect(client.findOpen(DRAFT.head, 'main')).resolves.toEqual(pullRequest);
    const find = standIn.requests.at(-1)!;
    expect(find.path).toBe(`${REPO_PATH}/pullrequests`);
    expect(Object.fromEntries(find.query)).toEqual({
      'searchCriteria.sourceRefName': 'refs/heads/service/101',
      'searchCriteria.targetRefName': 'refs/heads/main',
      'searchCriteria.status': 'active',
      'api-version': '7.1',
    });
    await expect(client.findOpen(DRAFT.head, 'release')).resolves.toBeNull();
  });

  it('finds the whole description although the list cuts it to 400 characters', async () => {
    const body = `<!-- pipeline-service -->\n${'summary line\n'.repeat(60)}`;
    await client.create({ ...DRAFT, body });
    standIn.clearRequests();
    await expect(client.findOpen(DRAFT.head, 'main')).resolves.toMatchObject({ body });
    expect(standIn.requests.map((r) => r.path)).toEqual([`${REPO_PATH}/pullrequests`, `${REPO_PATH}/pullrequests/1`]);
  });

  it('a second create returns the active one after the service’s 409 TF401179', async () => {
    const first = await client.create(DRAFT);
    const second = await client.create({ ...DRAFT, title: 'again' });
    expect(second).toEqual({ pullRequest: first.pullRequest, created: false });
    expect(standIn.pullRequests).toHaveLength(1);
    const refused = standIn.answers.filter((a) => a.method === 'POST').at(-1)!;
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      typeKey: 'GitPullRequestExistsException',
      message: "TF401179: An active pull request for the source branch 'refs/heads/service/101' and target branch 'refs/heads/main' already exists.",
    });
  });

  it('updates title and description', async () => {
    const { pullRequest } = await client.create(DRAFT);
    await expect(client.update(pullRequest.number, { title: 'new title', body: 'new body' })).resolves.toMatchObject({ title: 'new title', body: 'new body', state: 'open' });
    expect(standIn.pullRequest(1)).toMatchObject({ title: 'new title', description: 'new body' });
    expect(standIn.requests.at(-1)).toMatchObject({ method: 'PATCH', path: `${REPO_PATH}/pullrequests/1`, body: { title: 'new title', description: 'new body' } });
  });

  it('maps completed → merged and abandoned → closed, and finds neither as open', async () => {
    standIn.addBranch('service/102');
    const completed = (await client.create(DRAFT)).pullRequest.number;
    const abandoned = (await client.create({ ...DRAFT, head: 'service/102' })).pullRequest.number;
    standIn.mergePullRequest(completed);
    standIn.closePullRequest(abandoned);
    await expect(client.update(completed, { title: 't', body: 'b' })).resolves.toMatchObject({ state: 'merged' });
    await expect(client.update(abandoned, { title: 't', body: 'b' })).resolves.toMatchObject({ state: 'closed' });
    await expect(client.findOpen(DRAFT.head, 'main')).resolves.toBeNull();
  });

  it('cuts a body over 4000 characters so the service accepts it, on create and on update', async () => {
    const long = `<!-- pipeline-service -->\n${'x'.repeat(5000)}`;
    const uncut = await fetch(`${standIn.organizationUrl}/Shop/_apis/git/repositories/shop-web/pullrequests?api-version=7.1`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`:${PAT}`).toString('base64')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ sourceRefName: 'refs/heads/service/101', targetRefName: 'refs/heads/main', title: 't', description: long }),
    });
    expect(uncut.status).toBe(400); // what the service answers to the whole body
    expect(await uncut.json()).toMatchObject({ typeKey: 'InvalidArgumentValueException' });
    const before = standIn.answers.length;
    const { pullRequest } = await client.create({ ...DRAFT, body: long });
    const stored = standIn.pullRequest(pullRequest.number).description;
    expect(stored).toHaveLength(DESCRIPTION_LIMIT);
    expect(stored.startsWith('<!-- pipeline-service -->')).toBe(true);
    expect(stored).toMatch(/cut to Azure DevOps’s 4000-character limit\)$/);
    await client.update(pullRequest.number, { title: 't', body: long });
    expect(standIn.answers.slice(before).map((a) => a.status)).toEqual([201, 200]);
    expect(fitDescription('short')).toBe('short');
    const emoji = fitDescription('😀'.repeat(3000)); // never half a surrogate pair
    expect(emoji.length).toBeLessThanOrEqual(DESCRIPTION_LIMIT);
    expect(emoji).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });

  it('a source branch that does not exist is a TrackerError quoting TF401398', async () => {
    const err = await client.create({ ...DRAFT, head: 'service/404' }).then(unexpected, (e: unknown) => e as TrackerError);
    expect(err).toBeInstanceOf(TrackerError);
    expect(err).toMatchObject({ status: 400, retryable: false });
    expect(err.message).toContain('repository shop-web');
    expect(err.message).toContain('from service/404 into main');
    expect(err.message).toContain('TF401398');
  });

  it('a wrong PAT is a 401 TrackerError naming the repository, without the PAT', async () => {
    const wrong = 'adoWrongPullRequestPat999';
    const err = await make(wrong).defaultBranch().then(unexpected, (e: unknown) => e as TrackerError);
    expect(err).toMatchObject({ name: 'TrackerError', status: 401, retryable: false });
    expect(err.message).toContain('repository shop-web');
    expect(err.message).not.toContain(wrong);
    expect(err.message).not.toContain(Buffer.from(`:${wrong}`).toString('base64'));
  });
});

function unexpected(): never {
  throw new Error('expected the call to fail');
}
