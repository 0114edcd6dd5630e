import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GitHubTrackerClient } from '../../src/platforms/github/github-tracker.client.js';
import { TrackerError } from '../../src/platforms/tracker-client.js';
import { GitHubStandIn } from '../stand-ins/github-stand-in.js';

const TOKEN = 'ghp_LinkOriginSecret4711';

/**
 * A `Link: rel="next"` header is written by whoever answers for the tracker host (a compromised
 * API host, a proxy). However its target is spelled, the client follows it only on the configured
 * origin: the other server here must never see a request, let alone the token.
 */
describe('GitHub pagination: a Link header pointing elsewhere', () => {
  let github: GitHubStandIn;
  let elsewhere: GitHubStandIn;
  let client: GitHubTrackerClient;

  beforeAll(async () => {
    github = await new GitHubStandIn(TOKEN).start();
    elsewhere = await new GitHubStandIn('not-the-token').start();
    client = new GitHubTrackerClient({
      repoUrl: 'https://github.com/acme/shop-web',
      apiUrl: github.apiUrl,
      token: TOKEN,
      http: { sleep: async () => undefined, maxAttempts: 3, timeoutMs: 2000 },
    });
    github.addIssue(42, ['bug']);
    for (let i = 0; i < 3; i++) await client.postComment('42', `comment ${i}`);
  });

  afterAll(async () => {
    await github?.stop();
    await elsewhere?.stop();
  });

  beforeEach(() => {
    github.clearRequests();
    elsewhere.clearRequests();
  });

  const hostPort = (): string => new URL(elsewhere.url).host; // 127.0.0.1:<other port>
  const spellings: [string, () => string][] = [
    ['plain absolute URL', () => `http://${hostPort()}/repos/acme/shop-web/issues/42/comments?page=2`],
    ['upper-case scheme', () => `HTTP://${hostPort()}/repos/acme/shop-web/issues/42/comments?page=2`],
    ['"localhost" for the other port', () => `http://localhost:${new URL(elsewhere.url).port}/x`],
    ['two backslashes', () => `\\\\${hostPort()}/x`],
    ['backslash slash', () => `\\/${hostPort()}/x`],
    ['scheme and two backslashes', () => `http:\\\\${hostPort()}/x`],
    ['scheme, slash, backslash', () => `http:/\\${hostPort()}/x`],
    ['leading space', () => ` http://${hostPort()}/x`],
    ['leading tab', () => `\thttp://${hostPort()}/x`],
    ['tab inside the scheme', () => `ht\ttp://${hostPort()}/x`],
    ['userinfo that looks like the host', () => `http://${new URL(github.url).host}@${hostPort()}/x`],
  ];

  it.each(spellings)('%s: refused with a non-retryable error, nothing reaches the other server', async (_name, target) => {
    const link = target();
    github.failNext(1, {
      status: 200,
      headers: { link: `<${link}>; rel="next"` },
      body: [{ id: 1, body: 'first page', user: { login: 'someone' } }],
      match: (r) => r.method === 'GET' && r.path.endsWith('/comments'),
    });
    const err = await client.listComments('42').then(
      () => { throw new Error(`followed ${JSON.stringify(link)}`); },
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TrackerError);
    expect(err).toMatchObject({ status: null, retryable: false });
    expect((err as Error).message).toMatch(/refusing/);
    expect((err as Error).message).not.toContain(TOKEN);
    expect(elsewhere.requests).toEqual([]);
    // Only the first page was fetched, with the token, from the configured host.
    expect(github.requests).toHaveLength(1);
    expect(github.requests[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('slash backslash: read as a path on the configured host (the leading slash means "from the base URL")', async () => {
    const link = `/\\${hostPort()}/x`;
    github.failNext(1, {
      status: 200,
      headers: { link: `<${link}>; rel="next"` },
      body: [],
      match: (r) => r.method === 'GET' && r.path.endsWith('/comments'),
    });
    await expect(client.listComments('42')).rejects.toMatchObject({ status: 404 });
    expect(elsewhere.requests).toEqual([]);
    expect(github.requests.map((r) => r.path)).toEqual(['/repos/acme/shop-web/issues/42/comments', `/${hostPort()}/x`]);
  });

  it('a Link on the configured origin is still followed', async () => {
    github.failNext(1, {
      status: 200,
      headers: { link: `<${github.url}/repos/acme/shop-web/issues/42/comments?per_page=2&page=2>; rel="next"` },
      body: [],
      match: (r) => r.method === 'GET' && r.path.endsWith('/comments'),
    });
    const comments = await client.listComments('42');
    expect(comments.map((c) => c.body)).toEqual(['comment 2']);
    expect(github.requests).toHaveLength(2);
    expect(elsewhere.requests).toEqual([]);
  });
});
