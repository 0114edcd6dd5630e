import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitHubTrackerClient } from '../../src/platforms/github/github-tracker.client.js';
import { TrackerError, type PollQuery } from '../../src/platforms/tracker-client.js';
import { GitHubStandIn } from '../stand-ins/github-stand-in.js';

const TOKEN = 'ghp_PollingToken0042';
const ISSUES = '/repos/acme/shop-web/issues';
const TRIGGER = { statuses: ['ready-for-agent'], labels: ['ai-fix'] };

/** The poller's reads on GitHub (issue 17): which issues, how many requests, and label history. */
describe('GitHubTrackerClient polling against the GitHub stand-in', () => {
  let gh: GitHubStandIn;
  let client: GitHubTrackerClient;

  beforeEach(async () => {
    gh = await new GitHubStandIn(TOKEN).start();
    gh.clock.set('2026-11-02T09:00:00Z');
    client = new GitHubTrackerClient({
      repoUrl: 'https://github.com/acme/shop-web',
      apiUrl: gh.apiUrl,
      token: TOKEN,
      statusLabels: ['ready-for-agent', 'done', 'needs-info'],
      http: { sleep: async () => undefined, random: () => 0.5, maxAttempts: 2, timeoutMs: 2000 },
    });
  });
  afterEach(() => gh.stop());

  const poll = (updatedSince: Date | null): Promise<Awaited<ReturnType<GitHubTrackerClient['pollTickets']>>> => client.pollTickets({ ...TRIGGER, updatedSince });
  const listReads = (): { labels: string | null; since: string | null; page: string | null }[] =>
    gh.requests.filter((r) => r.path === ISSUES).map((r) => ({ labels: r.query.get('labels'), since: r.query.get('since'), page: r.query.get('page') }));

  it('keeps open issues with a trigger status or a mapped label; not other labels, closed issues or pull requests', async () => {
    gh.addIssue(1, ['bug', 'ready-for-agent'], { title: 'Totals', body: 'Steps' });
    gh.addIssue(2, ['AI-Fix']); // label names compare case-insensitively
    gh.addIssue(3, ['bug']);
    gh.addIssue(4, ['ready-for-agent'], { state: 'closed' });
    gh.addIssue(5, ['ai-fix'], { isPullRequest: true });

    for (const updatedSince of [null, new Date('2026-01-01T00:00:00Z')]) {
      const polled = await poll(updatedSince);
      expect(polled.map((t) => t.ticket)).toEqual(['1', '2']);
      expect(polled[0]).toEqual({
        ticket: '1',
        status: 'ready-for-agent',
        labels: ['bug', 'ready-for-agent'],
        title: 'Totals',
        description: 'Steps',
        url: 'https://github.com/acme/shop-web/issues/1',
        concurrencyToken: null,
        updatedAt: '2026-11-02T09:00:00Z',
      });
      expect(polled[1]).toMatchObject({ status: null, labels: ['AI-Fix'] });
    }
    const sent = gh.requests.filter((r) => r.path === ISSUES);
    expect(sent.every((r) => r.query.get('state') === 'open' && r.query.get('sort') === 'updated' && r.query.get('direction') === 'desc')).toBe(true);
    expect(sent.every((r) => r.headers.authorization === `Bearer ${TOKEN}` && r.headers['x-github-api-version'] === '2022-11-28')).toBe(true);
  });

  it('a full sweep asks once per trigger label, pages each to the end and de-duplicates', async () => {
    for (let n = 1; n <= 250; n++) gh.addIssue(n, n % 10 === 0 ? ['ready-for-agent', 'ai-fix'] : ['ready-for-agent']);
    for (let n = 251; n <= 400; n++) gh.addIssue(n, ['bug']);
    const polled = await poll(null);
    expect(polled.map((t) => Number(t.ticket))).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
    expect(listReads()).toEqual([
      { labels: 'ready-for-agent', since: null, page: null },
      { labels: 'ready-for-agent', since: null, page: '2' }, // the Link header's URLs
      { labels: 'ready-for-agent', since: null, page: '3' },
      { labels: 'ai-fix', since: null, page: null },
    ]);
  });

  it('with a cursor reads only what changed since, in one request (steady state)', async () => {
    for (let n = 1; n <= 300; n++) gh.addIssue(n, n <= 120 ? ['ready-for-agent'] : ['bug']);
    const cursor = new Date('2026-11-02T09:10:00.500Z'); // mid-second: the client rounds down
    gh.clock.set('2026-11-02T09:11:00Z');
    gh.addLabel(200, 'ready-for-agent', 'ana'); // a person labels it
    gh.addComment(7, 'any news?', 'bo'); // a comment moves updated_at of a triggering issue
    gh.removeLabel(8, 'ready-for-agent', 'ana'); // changed, but no longer triggers
    gh.closeIssue(9, 'ana');
    await client.setStatus('210', 'ready-for-agent'); // the service's own write through the API
    gh.clearRequests();

    const polled = await poll(cursor);
    expect(polled.map((t) => t.ticket)).toEqual(['7', '200', '210']);
    expect(polled.find((t) => t.ticket === '200')!.updatedAt).toBe('2026-11-02T09:11:00Z');
    expect(listReads()).toEqual([{ labels: null, since: '2026-11-02T09:10:00Z', page: null }]);

    gh.clearRequests();
    await expect(poll(new Date(gh.clock.now().getTime() + 1000))).resolves.toEqual([]);
    expect(gh.requests).toHaveLength(1);
  });

  it('a cursor read that would page far asks per label instead; a short one pages on', async () => {
    for (let n = 1; n <= 450; n++) gh.addIssue(n, n % 150 === 0 ? ['ai-fix'] : ['bug']);
    const query: PollQuery = { ...TRIGGER, updatedSince: new Date('2026-11-01T00:00:00Z') };
    expect((await client.pollTickets(query)).map((t) => t.ticket)).toEqual(['150', '300', '450']);
    // Five unfiltered pages would remain 4 more; two labels cost 2: 1 + 2 requests.
    expect(listReads().map((r) => r.labels)).toEqual([null, 'ready-for-agent', 'ai-fix']);

    for (let n = 151; n <= 450; n++) gh.issues.delete(n);
    gh.clearRequests();
    expect((await client.pollTickets(query)).map((t) => t.ticket)).toEqual(['150']);
    // 150 issues: one more page is cheaper than two label reads.
    expect(listReads()).toEqual([
      { labels: null, since: '2026-11-01T00:00:00Z', page: null },
      { labels: null, since: '2026-11-01T00:00:00Z', page: '2' },
    ]);
  });

  it('triggeredAt: the latest labeled event of a trigger label, over the paged issue events', async () => {
    gh.addIssue(7, ['bug']);
    expect(await client.triggeredAt('7', TRIGGER)).toBeNull();
    for (let i = 0; i < 100; i++) gh.concurrentEdit(7, (issue) => void (issue.labels = i % 2 === 0 ? [] : ['bug'])); // 100 events of another label
    gh.clock.set('2026-11-02T09:01:00Z');
    gh.addLabel(7, 'Ready-For-Agent', 'ana');
    gh.clock.set('2026-11-02T09:02:00Z');
    await client.setStatus('7', 'done'); // the service moves it on: ready-for-agent removed
    gh.clock.set('2026-11-02T09:03:00Z');
    gh.addLabel(7, 'ready-for-agent', 'ana'); // moved back by a person
    gh.clock.set('2026-11-02T09:04:00Z');
    gh.addLabel(7, 'needs-info'); // a status, but not a trigger
    gh.clearRequests();

    await expect(client.triggeredAt('7', TRIGGER)).resolves.toEqual(new Date('2026-11-02T09:03:00Z'));
    expect(gh.requests.map((r) => `${r.path} ${r.query.get('page') ?? ''}`.trim())).toEqual([`${ISSUES}/7/events`, `${ISSUES}/7/events 2`]);
    await expect(client.triggeredAt('7', { statuses: [], labels: ['ai-fix'] })).resolves.toBeNull();

    gh.clock.set('2026-11-02T09:05:00Z');
    gh.addLabel(7, 'ai-fix');
    await expect(client.triggeredAt('7', TRIGGER)).resolves.toEqual(new Date('2026-11-02T09:05:00Z'));
    const events = gh.issues.get(7)!.events.filter((e) => e.label?.toLowerCase() === 'ready-for-agent');
    expect(events.map((e) => [e.event, e.actor])).toEqual([['labeled', 'ana'], ['unlabeled', 'pipeline-bot'], ['labeled', 'ana']]);
  });

  it('fails as a TrackerError: a rate limit beyond the cap carries its wait, bad credentials are final', async () => {
    gh.addIssue(1, ['ready-for-agent']);
    gh.failNext(1, { status: 429, retryAfterSeconds: 600 });
    await expect(poll(null)).rejects.toMatchObject({ name: 'TrackerError', status: 429, retryable: true, retryAfterMs: 600_000 });
    gh.failNext(1, { status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 3600) } });
    await expect(client.triggeredAt('1', TRIGGER)).rejects.toMatchObject({ status: 403, retryable: true });
    gh.failNext(1, { status: 401, body: { message: 'Bad credentials' } });
    const err = await poll(new Date()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrackerError);
    expect(err).toMatchObject({ status: 401, retryable: false });
  });
});
