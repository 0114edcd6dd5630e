import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitHubPullRequestConversationsClient } from '../../../src/platforms/github/github-pull-request-conversations.client.js';
import { gitHubGraphQl, reviewThreadComments } from '../../../src/platforms/github/github-review-threads.js';
import { TrackerError } from '../../../src/platforms/tracker-client.js';
import { GitHubStandIn } from '../../stand-ins/github-stand-in.js';

const TOKEN = 'ghp_ConversationSecret0042';
const at = (minute: number): string => new Date(Date.UTC(2026, 2, 1, 9, minute)).toISOString();

describe('GitHubPullRequestConversationsClient against the GitHub stand-in', () => {
  let standIn: GitHubStandIn;
  let client: GitHubPullRequestConversationsClient;

  beforeEach(async () => {
    standIn = await new GitHubStandIn(TOKEN).start();
    client = new GitHubPullRequestConversationsClient({ repoUrl: 'https://github.com/acme/shop-web', apiUrl: standIn.apiUrl, token: TOKEN, repository: 'shop-web', http: { sleep: async () => {}, maxAttempts: 1 } });
  });
  afterEach(() => standIn.stop());

  it('self is the token’s login, asked once', async () => {
    expect(await client.self()).toBe('pipeline-bot');
    expect(await client.self()).toBe('pipeline-bot');
    expect(standIn.requests.filter((r) => r.path === '/user')).toHaveLength(1);
  });

  it('reads the conversation, submitted review bodies and the review threads with their resolution, oldest first', async () => {
    const n = standIn.openPullRequest({ head: 'service/42' });
    const reviews = standIn.pulls.reviews;
    standIn.addComment(n, 'Please also cover the empty cart.', 'ana', at(1));
    const open = reviews.addComment(n, { path: 'src/cart.ts', line: 4, body: 'Off by one?', login: 'ana', createdAt: at(2) });
    const done = reviews.addComment(n, { path: 'src/cart.ts', line: 9, body: 'Rename this.', login: 'bo', createdAt: at(3) });
    reviews.addComment(n, { inReplyTo: open, body: 'Still wrong after the fix.', login: 'ana', createdAt: at(6) });
    reviews.resolveThread(done);
    reviews.addReview(n, { event: 'REQUEST_CHANGES', body: 'Two things to fix.', login: 'ana', submittedAt: at(4) });
    reviews.addReview(n, { event: 'APPROVE', body: '', login: 'bo', submittedAt: at(5) });

    const items = await client.discussion(n);
    expect(items.map((i) => [i.id.split('/')[0], i.author, i.body, i.createdAt])).toEqual([
      ['issue-comment', 'ana', 'Please also cover the empty cart.', at(1)],
      ['review-comment', 'ana', 'Off by one?', at(2)],
      ['review-comment', 'bo', 'Rename this.', at(3)],
      ['review', 'ana', 'Two things to fix.', at(4)],
      ['review-comment', 'ana', 'Still wrong after the fix.', at(6)],
    ]);
    const [conversation, first, resolved, review, reply] = items;
    expect(conversation).toMatchObject({ path: null, line: null, threadId: null, resolved: null, system: false });
    expect(review).toMatchObject({ threadId: null, resolved: null });
    expect(first).toMatchObject({ id: `review-comment/${open}`, path: 'src/cart.ts', line: 4, resolved: false });
    expect(reply).toMatchObject({ path: 'src/cart.ts', line: 4, threadId: first!.threadId, resolved: false });
    expect(resolved).toMatchObject({ line: 9, resolved: true });
    expect(resolved!.threadId).not.toBe(first!.threadId);
  });

  it('pages every list to the end: the conversation by Link, the threads by GraphQL cursor', async () => {
    const n = standIn.openPullRequest({ head: 'service/42' });
    for (let i = 0; i < 130; i++) standIn.addComment(n, `comment ${i}`, 'ana');
    for (let i = 0; i < 120; i++) standIn.pulls.reviews.addComment(n, { path: 'a.ts', line: i + 1, body: `thread ${i}`, login: 'bo' });
    standIn.clearRequests();
    const items = await client.discussion(n);
    expect(items.filter((i) => i.id.startsWith('issue-comment/'))).toHaveLength(130);
    expect(items.filter((i) => i.id.startsWith('review-comment/'))).toHaveLength(120);
    expect(standIn.requests.filter((r) => r.path.endsWith(`/issues/${n}/comments`)).map((r) => r.query.get('page'))).toEqual([null, '2']);
    const cursors = standIn.requests.filter((r) => r.path === '/graphql').map((r) => (r.body as { variables: { cursor: string | null } }).variables.cursor);
    expect(cursors).toHaveLength(2);
    expect(cursors[0]).toBeNull();
    expect(typeof cursors[1]).toBe('string');
  });

  it('a pull request GraphQL cannot resolve is an error naming the repository, never carrying the token', async () => {
    const n = standIn.openPullRequest({ head: 'service/42' });
    standIn.failNext(1, { status: 502, body: { message: `token ${TOKEN}` }, match: (r) => r.path === '/graphql' });
    const failed = await client.discussion(n).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(TrackerError);
    expect((failed as TrackerError).message).toContain('repository shop-web');
    expect((failed as TrackerError).message).not.toContain(TOKEN);

    // GraphQL answers 200 with `errors` for what it cannot resolve.
    const threads = reviewThreadComments(gitHubGraphQl(standIn.apiUrl, TOKEN), { owner: 'acme', name: 'shop-web', number: 77, repository: 'shop-web' });
    await expect(threads).rejects.toThrow(/repository shop-web: .*Could not resolve to a PullRequest with the number of 77/);
  });

  it('GraphQL sits beside REST: /graphql on api.github.com, /api/graphql on GitHub Enterprise Server', async () => {
    const asked: string[] = [];
    const fetch = (async (url: URL | string) => {
      asked.push(String(url));
      return new Response('{"data":null}', { headers: { 'content-type': 'application/json' } });
    }) as typeof globalThis.fetch;
    for (const base of ['https://api.github.com', 'https://ghe.example/api/v3/']) {
      await gitHubGraphQl(base, TOKEN, { fetch }).request({ method: 'POST', path: 'graphql', body: {} });
    }
    expect(asked).toEqual(['https://api.github.com/graphql', 'https://ghe.example/api/graphql']);
  });
});
