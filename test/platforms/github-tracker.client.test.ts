import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitHubTrackerClient } from '../../src/platforms/github/github-tracker.client.js';
import { TrackerError } from '../../src/platforms/tracker-client.js';
import { GitHubStandIn } from '../stand-ins/github-stand-in.js';

const TOKEN = 'ghp_SuperSecretToken123';

describe('GitHubTrackerClient against the GitHub stand-in', () => {
  let standIn: GitHubStandIn;
  let client: GitHubTrackerClient;
  let waits: number[];

  const make = (token = TOKEN): GitHubTrackerClient =>
    new GitHubTrackerClient({
      repoUrl: 'https://github.com/acme/shop-web',
      apiUrl: standIn.apiUrl,
      token,
      statusLabels: ['ready-for-agent', 'done', 'needs-info'],
      http: { sleep: async (ms) => void waits.push(ms), random: () => 0.5, maxAttempts: 3, timeoutMs: 2000 },
    });

  beforeEach(async () => {
    standIn = await new GitHubStandIn(TOKEN).start();
    waits = [];
    client = make();
    standIn.addIssue(42, ['bug', 'ready-for-agent', 'service:pending']);
  });
  afterEach(() => standIn.stop());

  it('reads labels, status, title, web page and the ETag with the documented headers', async () => {
    standIn.issues.get(42)!.title = 'Checkout rounds totals twice';
    const read = await client.readTicket('42');
    expect(read).toMatchObject({
      ticket: '42',
      status: 'ready-for-agent',
      labels: ['bug', 'ready-for-agent', 'service:pending'],
      title: 'Checkout rounds totals twice',
      url: 'https://github.com/acme/shop-web/issues/42',
    });
    expect(read.concurrencyToken).toMatch(/^W\/".+"$/);
    const req = standIn.requests[0]!;
    expect(req.path).toBe('/repos/acme/shop-web/issues/42');
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req.headers.accept).toBe('application/vnd.github+json');
    expect(req.headers['x-github-api-version']).toBe('2022-11-28');
  });

  it('reads title, description (body) and the whole comment history, oldest first, over the wire', async () => {
    const issue = standIn.issues.get(42)!;
    issue.title = 'Checkout rounds totals twice';
    issue.body = '## Steps\n\n1. Add two items\n2. See the total\n\n<!-- hidden note -->';
    const ids: number[] = [];
    for (let i = 0; i < 130; i++) ids.push(standIn.addComment(42, `comment ${i}`, i % 2 === 0 ? 'ana' : 'bo'));
    const read = await client.readTicket('42');
    expect(read).toMatchObject({ title: 'Checkout rounds totals twice', description: issue.body });
    const comments = await client.listComments('42');
    expect(comments.map((c) => c.id)).toEqual(ids.map(String));
    expect(comments[0]).toEqual({ id: String(ids[0]), body: 'comment 0', author: 'ana' });
    expect(comments[129]).toEqual({ id: String(ids[129]), body: 'comment 129', author: 'bo' });
    const pages = standIn.requests.filter((r) => r.path === '/repos/acme/shop-web/issues/42/comments');
    expect(pages.map((r) => r.query.get('page'))).toEqual([null, '2']); // the second URL is the Link header's
  });

  it('answers a null description for an issue without a body, in reads and lists alike', async () => {
    standIn.addIssue(43, ['ready-for-agent'], { body: 'Listed body' });
    expect((await client.readTicket('42')).description).toBeNull();
    const listed = await client.listTickets({ statuses: ['ready-for-agent'] });
    expect(listed.map((t) => [t.ticket, t.description])).toEqual([['42', null], ['43', 'Listed body']]);
  });

  it('replaces the lifecycle label with If-Match and leaves foreign labels untouched', async () => {
    const read = await client.readTicket('42');
    await expect(client.replaceLifecycleLabel('42', 'service:enqueued', read)).resolves.toEqual({ outcome: 'Updated' });
    expect(standIn.issues.get(42)!.labels).toEqual(['bug', 'ready-for-agent', 'service:enqueued']);
    const patch = standIn.requests.at(-1)!;
    expect(patch.method).toBe('PATCH');
    expect(patch.headers['if-match']).toBe(read.concurrencyToken);
    expect(patch.body).toEqual({ labels: ['bug', 'ready-for-agent', 'service:enqueued'] });

    const again = await client.readTicket('42');
    expect(again.concurrencyToken).not.toBe(read.concurrencyToken);
    await client.replaceLifecycleLabel('42', null, again);
    expect(standIn.issues.get(42)!.labels).toEqual(['bug', 'ready-for-agent']);
  });

  it('answers PreconditionFailed when the issue changed between read and write, then succeeds after a re-read', async () => {
    const read = await client.readTicket('42');
    standIn.concurrentEdit(42, (issue) => issue.labels.push('triaged'));
    await expect(client.replaceLifecycleLabel('42', 'service:enqueued', read)).resolves.toEqual({ outcome: 'PreconditionFailed' });
    expect(standIn.issues.get(42)!.labels).toEqual(['bug', 'ready-for-agent', 'service:pending', 'triaged']);

    const reread = await client.readTicket('42');
    await expect(client.replaceLifecycleLabel('42', 'service:enqueued', reread)).resolves.toEqual({ outcome: 'Updated' });
    expect(standIn.issues.get(42)!.labels).toEqual(['bug', 'ready-for-agent', 'triaged', 'service:enqueued']);
  });

  it('detects an edit that lands while the write is in flight', async () => {
    const read = await client.readTicket('42');
    standIn.beforeNext((r) => r.method === 'PATCH', () => standIn.concurrentEdit(42));
    await expect(client.replaceLifecycleLabel('42', 'service:enqueued', read)).resolves.toEqual({ outcome: 'PreconditionFailed' });
  });

  it('refuses to write a label without the service: prefix', async () => {
    const read = await client.readTicket('42');
    await expect(client.replaceLifecycleLabel('42', 'bug', read)).rejects.toBeInstanceOf(TrackerError);
  });

  it('honours Retry-After on 429, then succeeds', async () => {
    standIn.failNext(2, { status: 429, retryAfterSeconds: 2 });
    await expect(client.readTicket('42')).resolves.toMatchObject({ ticket: '42' });
    expect(waits).toEqual([2000, 2000]);
    expect(standIn.requests).toHaveLength(3);
  });

  it('waits for x-ratelimit-reset on a secondary rate limit (403)', async () => {
    const reset = Math.ceil(Date.now() / 1000) + 5;
    standIn.failNext(1, { status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) }, body: { message: 'API rate limit exceeded' } });
    await client.readTicket('42');
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThan(3000);
    expect(waits[0]).toBeLessThanOrEqual(6000);
  });

  it('fails at once, retryable, when the mandated wait exceeds the cap', async () => {
    standIn.failNext(1, { status: 403, retryAfterSeconds: 3600, body: { message: 'You have exceeded a secondary rate limit' } });
    const err = await client.readTicket('42').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrackerError);
    expect(err).toMatchObject({ status: 403, retryable: true, retryAfterMs: 3_600_000 });
    expect(waits).toEqual([]);
  });

  it('a plain 403 is not retried', async () => {
    standIn.failNext(1, { status: 403, body: { message: 'Resource not accessible by integration' } });
    await expect(client.readTicket('42')).rejects.toMatchObject({ status: 403, retryable: false });
    expect(standIn.requests).toHaveLength(1);
  });

  it('tracker down (503) → retryable TrackerError after bounded retries', async () => {
    standIn.setDown('unavailable');
    await expect(client.readTicket('42')).rejects.toMatchObject({ name: 'TrackerError', status: 503, retryable: true });
    expect(standIn.requests).toHaveLength(3);
    expect(waits).toHaveLength(2);
  });

  it('tracker refusing connections → retryable TrackerError with no status', async () => {
    standIn.setDown('refuse');
    await expect(client.readTicket('42')).rejects.toMatchObject({ status: null, retryable: true });
  });

  it('times out a hanging tracker per attempt → retryable TrackerError', async () => {
    standIn.setDown('hang');
    const hanging = new GitHubTrackerClient({
      repoUrl: 'https://github.com/acme/shop-web',
      apiUrl: standIn.apiUrl,
      token: TOKEN,
      http: { sleep: async (ms) => void waits.push(ms), timeoutMs: 150, maxAttempts: 2 },
    });
    const err = await hanging.readTicket('42').then(unexpected, (e: unknown) => e as TrackerError);
    expect(err).toMatchObject({ status: null, retryable: true });
    expect(err.message).toContain('timed out');
    expect(standIn.requests).toHaveLength(2);
  });

  it('posts a comment only once even when the tracker fails ambiguously (no retry of POST on 502)', async () => {
    standIn.failNext(1, { status: 502 });
    await expect(client.postComment('42', 'hello')).rejects.toMatchObject({ status: 502, retryable: true });
    expect(standIn.requests).toHaveLength(1);
  });

  it('posts and lists comments across pages', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 105; i++) ids.push(await client.postComment('42', `comment ${i}`));
    const comments = await client.listComments('42');
    expect(comments).toHaveLength(105);
    expect(comments[0]).toEqual({ id: ids[0], body: 'comment 0', author: 'pipeline-bot' });
    expect(comments.at(-1)!.id).toBe(ids.at(-1));
  });

  it('setStatus adds the status label and removes the other status labels only', async () => {
    await client.setStatus('42', 'done');
    expect(standIn.issues.get(42)!.labels).toEqual(['bug', 'service:pending', 'done']);
    expect((await client.readTicket('42')).status).toBe('done');
  });

  it('lists open issues by status (OR) and label (AND), skipping pull requests and closed issues', async () => {
    standIn.addIssue(7, ['needs-info', 'security']);
    standIn.addIssue(8, ['ready-for-agent']);
    standIn.addIssue(9, ['ready-for-agent', 'security'], { isPullRequest: true });
    standIn.addIssue(10, ['ready-for-agent', 'security'], { state: 'closed' });
    standIn.issues.get(42)!.labels.push('security');
    const all = await client.listTickets({ statuses: ['ready-for-agent', 'needs-info'], labels: ['security'] });
    expect(all.map((t) => t.ticket)).toEqual(['7', '42']);
    expect(all.find((t) => t.ticket === '7')).toMatchObject({ status: 'needs-info', title: 'Issue 7', url: 'https://github.com/acme/shop-web/issues/7', concurrencyToken: null });
  });

  it('paginates the issue list by the Link header', async () => {
    for (let n = 100; n < 230; n++) standIn.addIssue(n, ['ready-for-agent']);
    const found = await client.listTickets({ statuses: ['ready-for-agent'] });
    expect(found).toHaveLength(131);
    expect(standIn.requests.filter((r) => r.path.endsWith('/issues'))).toHaveLength(2);
  });

  it('never puts the token in error messages', async () => {
    const wrong = make('ghp_WrongTokenValue999');
    const unauthorized = await wrong.readTicket('42').then(unexpected, (e: unknown) => e as TrackerError);
    expect(unauthorized).toMatchObject({ status: 401, retryable: false });
    expect(unauthorized.message).not.toContain('ghp_WrongTokenValue999');
    standIn.failNext(1, { status: 400, body: { message: `echo: Bearer ${TOKEN}` } });
    const echoed = await client.readTicket('42').then(unexpected, (e: unknown) => e as TrackerError);
    expect(echoed.message).toContain('***');
    expect(echoed.message).not.toContain(TOKEN);
  });

  it('404 on an unknown issue is not retryable', async () => {
    await expect(client.readTicket('999')).rejects.toMatchObject({ status: 404, retryable: false });
  });
});

function unexpected(): never {
  throw new Error('expected the call to fail');
}
