import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitLabTrackerClient } from '../../src/platforms/gitlab/gitlab-tracker.client.js';
import { TrackerError, type PollQuery } from '../../src/platforms/tracker-client.js';
import { GitLabStandIn } from '../stand-ins/gitlab-stand-in.js';

const TOKEN = 'glpat-PollingToken0042';
const ISSUES = '/api/v4/projects/fin%2Fbilling/issues';
const TRIGGER = { statuses: ['ready-for-agent'], labels: ['ai-fix'] };

/** The poller's reads on GitLab (issue 17): which issues, how many requests, and label history. */
describe('GitLabTrackerClient polling against the GitLab stand-in', () => {
  let gl: GitLabStandIn;
  let client: GitLabTrackerClient;

  beforeEach(async () => {
    gl = await new GitLabStandIn(TOKEN).start();
    gl.clock.set('2026-11-02T09:00:00Z');
    client = new GitLabTrackerClient({
      repoUrl: 'https://gitlab.example/fin/billing',
      apiUrl: gl.apiUrl,
      token: TOKEN,
      statusLabels: ['ready-for-agent', 'done', 'needs-info'],
      http: { sleep: async () => undefined, random: () => 0.5, maxAttempts: 2, timeoutMs: 2000 },
    });
  });
  afterEach(() => gl.stop());

  const poll = (updatedSince: Date | null): ReturnType<GitLabTrackerClient['pollTickets']> => client.pollTickets({ ...TRIGGER, updatedSince });
  const listReads = (): { labels: string | null; after: string | null; page: string | null }[] =>
    gl.requests.filter((r) => r.path === ISSUES).map((r) => ({ labels: r.query.get('labels'), after: r.query.get('updated_after'), page: r.query.get('page') }));

  it('keeps open issues with a trigger status or a mapped label; not other labels or closed issues', async () => {
    gl.addIssue(1, ['backend', 'ready-for-agent'], 'opened', 'Totals', 'Steps');
    gl.addIssue(2, ['AI-Fix']); // label names compare case-insensitively
    gl.addIssue(3, ['backend']);
    gl.addIssue(4, ['ready-for-agent'], 'closed');

    for (const updatedSince of [null, new Date('2026-01-01T00:00:00Z')]) {
      const polled = await poll(updatedSince);
      expect(polled.map((t) => t.ticket)).toEqual(['1', '2']);
      expect(polled[0]).toEqual({
        ticket: '1',
        status: 'ready-for-agent',
        labels: ['backend', 'ready-for-agent'],
        title: 'Totals',
        description: 'Steps',
        url: 'https://gitlab.example/fin/billing/-/issues/1',
        concurrencyToken: null,
        updatedAt: expect.stringMatching(/^2026-11-02T09:00:00\.\d{3}Z$/),
      });
      expect(polled[1]).toMatchObject({ status: null, labels: ['AI-Fix'] });
    }
    const sent = gl.requests.filter((r) => r.path === ISSUES);
    expect(sent.every((r) => r.query.get('state') === 'opened' && r.query.get('order_by') === 'updated_at' && r.query.get('sort') === 'desc')).toBe(true);
    expect(sent.every((r) => r.headers['private-token'] === TOKEN)).toBe(true);
  });

  it('a full sweep asks once per trigger label, pages each to the end (X-Next-Page) and de-duplicates', async () => {
    for (let n = 1; n <= 250; n++) gl.addIssue(n, n % 10 === 0 ? ['ready-for-agent', 'ai-fix'] : ['ready-for-agent']);
    for (let n = 251; n <= 400; n++) gl.addIssue(n, ['backend']);
    const polled = await poll(null);
    expect(polled.map((t) => Number(t.ticket))).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
    expect(listReads()).toEqual([
      { labels: 'ready-for-agent', after: null, page: '1' },
      { labels: 'ready-for-agent', after: null, page: '2' },
      { labels: 'ready-for-agent', after: null, page: '3' },
      { labels: 'ai-fix', after: null, page: '1' },
    ]);
  });

  it('with a cursor reads only what changed since, in one request (steady state)', async () => {
    for (let n = 1; n <= 300; n++) gl.addIssue(n, n <= 120 ? ['ready-for-agent'] : ['backend']);
    const cursor = new Date('2026-11-02T09:10:00.500Z'); // mid-second: the client rounds down
    gl.clock.set('2026-11-02T09:11:00Z');
    gl.addLabel(200, 'ready-for-agent', 'ana'); // a person labels it
    gl.addNote(7, 'any news?', { username: 'bo' }); // a comment moves updated_at of a triggering issue
    gl.removeLabel(8, 'ready-for-agent', 'ana'); // changed, but no longer triggers
    gl.closeIssue(9, 'ana');
    await client.setStatus('210', 'ready-for-agent'); // the service's own write through the API
    gl.clearRequests();

    const polled = await poll(cursor);
    expect(polled.map((t) => t.ticket)).toEqual(['7', '200', '210']);
    expect(polled.find((t) => t.ticket === '200')!.updatedAt).toMatch(/^2026-11-02T09:11:00\.\d{3}Z$/);
    expect(listReads()).toEqual([{ labels: null, after: '2026-11-02T09:10:00Z', page: '1' }]);

    gl.clearRequests();
    await expect(poll(new Date(gl.clock.now().getTime() + 1000))).resolves.toEqual([]);
    expect(gl.requests).toHaveLength(1);
  });

  it('a cursor read that would page far asks per label instead; a short one pages on', async () => {
    for (let n = 1; n <= 450; n++) gl.addIssue(n, n % 150 === 0 ? ['ai-fix'] : ['backend']);
    const query: PollQuery = { ...TRIGGER, updatedSince: new Date('2026-11-01T00:00:00Z') };
    expect((await client.pollTickets(query)).map((t) => t.ticket)).toEqual(['150', '300', '450']);
    // X-Total-Pages 5: four more pages cost more than two label reads.
    expect(listReads().map((r) => r.labels)).toEqual([null, 'ready-for-agent', 'ai-fix']);

    for (let n = 151; n <= 450; n++) gl.issues.delete(n);
    gl.clearRequests();
    expect((await client.pollTickets(query)).map((t) => t.ticket)).toEqual(['150']);
    expect(listReads()).toEqual([
      { labels: null, after: '2026-11-01T00:00:00Z', page: '1' },
      { labels: null, after: '2026-11-01T00:00:00Z', page: '2' },
    ]);
  });

  it('asks per label when GitLab does not say how many pages remain (past 10,000 issues)', async () => {
    for (let n = 1; n <= 10_050; n++) gl.addIssue(n, n === 5000 ? ['ready-for-agent'] : []);
    const polled = await client.pollTickets({ ...TRIGGER, updatedSince: new Date('2026-11-01T00:00:00Z') });
    expect(polled.map((t) => t.ticket)).toEqual(['5000']);
    expect(listReads().map((r) => r.labels)).toEqual([null, 'ready-for-agent', 'ai-fix']);
  });

  it('triggeredAt: the latest add of a trigger label, over the paged resource label events', async () => {
    gl.addIssue(7, ['backend']);
    expect(await client.triggeredAt('7', TRIGGER)).toBeNull();
    for (let i = 0; i < 100; i++) gl.concurrentEdit(7, (issue) => void (issue.labels = i % 2 === 0 ? [] : ['backend'])); // 100 events of another label
    gl.clock.set('2026-11-02T09:01:00Z');
    gl.addLabel(7, 'Ready-For-Agent', 'ana');
    gl.clock.set('2026-11-02T09:02:00Z');
    await client.setStatus('7', 'done'); // the service moves it on: ready-for-agent removed
    gl.clock.set('2026-11-02T09:03:00Z');
    const readdedAt = gl.clock.now();
    gl.addLabel(7, 'ready-for-agent', 'ana'); // moved back by a person
    gl.clock.set('2026-11-02T09:04:00Z');
    gl.addLabel(7, 'needs-info'); // a status, but not a trigger
    gl.clearRequests();

    await expect(client.triggeredAt('7', TRIGGER)).resolves.toEqual(readdedAt);
    expect(gl.requests.map((r) => `${r.path} ${r.query.get('page')}`)).toEqual([`${ISSUES}/7/resource_label_events 1`, `${ISSUES}/7/resource_label_events 2`]);
    await expect(client.triggeredAt('7', { statuses: [], labels: ['ai-fix'] })).resolves.toBeNull();

    const events = gl.issues.get(7)!.labelEvents.filter((e) => e.label.toLowerCase() === 'ready-for-agent');
    expect(events.map((e) => [e.action, e.username])).toEqual([['add', 'ana'], ['remove', 'pipeline-bot'], ['add', 'ana']]);
    expect(gl.issues.get(7)!.notes.filter((n) => n.system && n.username === 'ana').map((n) => n.body)).toEqual(['added ~"Ready-For-Agent" label', 'added ~"ready-for-agent" label']);
  });

  it('fails as a TrackerError: a rate limit beyond the cap carries its wait, bad credentials are final', async () => {
    gl.addIssue(1, ['ready-for-agent']);
    gl.failNext(1, { status: 429, retryAfterSeconds: 600 });
    await expect(poll(null)).rejects.toMatchObject({ name: 'TrackerError', status: 429, retryable: true, retryAfterMs: 600_000 });
    gl.failNext(1, { status: 429, retryAfterSeconds: 600 });
    await expect(client.triggeredAt('1', TRIGGER)).rejects.toMatchObject({ status: 429, retryable: true });
    gl.failNext(1, { status: 401, body: { message: '401 Unauthorized' } });
    const err = await poll(new Date()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrackerError);
    expect(err).toMatchObject({ status: 401, retryable: false });
  });
});
