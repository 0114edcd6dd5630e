import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildJql, JiraTrackerClient } from '../../src/platforms/jira/jira-tracker.client.js';
import type { TrackerError } from '../../src/platforms/tracker-client.js';
import { JiraStandIn } from '../stand-ins/jira-stand-in.js';

const USER = 'bot@acme.example';
const API_TOKEN = 'ATATT3xJiraSecretToken';

describe('JiraTrackerClient against the Jira stand-in', () => {
  let standIn: JiraStandIn;
  let client: JiraTrackerClient;
  let waits: number[];

  const make = (credentials = `${USER}:${API_TOKEN}`): JiraTrackerClient =>
    new JiraTrackerClient({
      siteUrl: standIn.siteUrl,
      credentials,
      projectKey: 'BILL',
      http: { sleep: async (ms) => void waits.push(ms), random: () => 0, maxAttempts: 3 },
    });

  beforeEach(async () => {
    standIn = await new JiraStandIn(USER, API_TOKEN).start();
    waits = [];
    client = make();
    standIn.addIssue('BILL-12', 'Ready for Agent', ['payments', 'service:pending']);
  });
  afterEach(() => standIn.stop());

  it('reads status, labels, summary and the browse link with Basic user:api-token', async () => {
    await expect(client.readTicket('BILL-12')).resolves.toEqual({
      ticket: 'BILL-12',
      status: 'Ready for Agent',
      labels: ['payments', 'service:pending'],
      title: 'Issue BILL-12',
      description: null,
      url: `${standIn.siteUrl}/browse/BILL-12`,
      concurrencyToken: null,
    });
    const req = standIn.requests[0]!;
    expect(req.path).toBe('/rest/api/2/issue/BILL-12');
    expect(req.query.get('fields')).toBe('status,labels,summary,description');
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from(`${USER}:${API_TOKEN}`).toString('base64')}`);
  });

  it('reads summary, description (v2 wiki markup, kept) and every comment oldest first across pages', async () => {
    standIn.addIssue('BILL-20', 'Ready for Agent', [], 'Refunds skip the ledger', 'h2. Steps\n* refund an order\n* {{ledger}} has no line');
    const ids: string[] = [];
    for (let i = 0; i < 230; i++) ids.push(standIn.addComment('BILL-20', `comment ${i}`, i % 2 === 0 ? 'ana' : 'bo'));
    await expect(client.readTicket('BILL-20')).resolves.toMatchObject({
      title: 'Refunds skip the ledger',
      description: 'h2. Steps\n* refund an order\n* {{ledger}} has no line',
    });
    const comments = await client.listComments('BILL-20');
    expect(comments.map((c) => c.id)).toEqual(ids);
    expect(comments[1]).toEqual({ id: ids[1], body: 'comment 1', author: 'bo' });
    const pages = standIn.requests.filter((r) => r.path === '/rest/api/2/issue/BILL-20/comment');
    expect(pages.map((r) => r.query.get('startAt'))).toEqual(['0', '100', '200']);
    expect(pages.every((r) => r.query.get('orderBy') === 'created')).toBe(true);
  });

  it('turns an Atlassian Document Format description (the v3 shape) into plain text; lists carry it too', async () => {
    const adf = {
      type: 'doc',
      version: 1,
      content: [
        { type: 'heading', attrs: { level: 2 }, content: [{ type: 'text', text: 'Steps' }] },
        { type: 'paragraph', content: [{ type: 'mention', attrs: { id: 'abc', text: '@Ana' } }, { type: 'text', text: ' please fix' }] },
      ],
    };
    standIn.addIssue('BILL-21', 'Ready for Agent', [], 'ADF', adf);
    expect((await client.readTicket('BILL-21')).description).toBe('## Steps\n\n@Ana please fix');
    const listed = await client.listTickets({ statuses: ['Ready for Agent'] });
    expect(listed.map((t) => [t.ticket, t.description])).toEqual([['BILL-12', null], ['BILL-21', '## Steps\n\n@Ana please fix']]);
    const search = standIn.requests.find((r) => r.path === '/rest/api/2/search/jql')!;
    expect((search.body as { fields: string[] }).fields).toContain('description');
  });

  it('edits labels with update add/remove verbs, foreign labels untouched, no precondition claimed', async () => {
    const read = await client.readTicket('BILL-12');
    standIn.concurrentEdit('BILL-12', (i) => i.labels.push('customer-x'));
    await expect(client.replaceLifecycleLabel('BILL-12', 'service:in-progress', read)).resolves.toEqual({ outcome: 'Updated' });
    const put = standIn.requests.at(-1)!;
    const verbs = (put.body as { update: { labels: Record<string, string>[] } }).update.labels;
    expect(verbs.at(-1)).toEqual({ add: 'service:in-progress' });
    expect(verbs.slice(0, -1).every((v) => v['remove']?.startsWith('service:'))).toBe(true);
    expect(standIn.issues.get('BILL-12')!.labels).toEqual(['payments', 'customer-x', 'service:in-progress']);
    await client.replaceLifecycleLabel('BILL-12', null, await client.readTicket('BILL-12'));
    expect(standIn.issues.get('BILL-12')!.labels).toEqual(['payments', 'customer-x']);
  });

  it('setStatus picks the transition by target status name, case-insensitively', async () => {
    await client.setStatus('BILL-12', 'in progress');
    const post = standIn.requests.at(-1)!;
    expect(post.body).toEqual({ transition: { id: standIn.transitionId('In Progress') } });
    expect(standIn.issues.get('BILL-12')!.status).toBe('In Progress');
    await client.setStatus('BILL-12', 'In Progress'); // already there: no-op
    await expect(client.setStatus('BILL-12', 'Shipped')).rejects.toMatchObject({ name: 'TrackerError', retryable: false });
  });

  it('honours Retry-After on 429, then succeeds', async () => {
    standIn.failNext(2, { status: 429, retryAfterSeconds: 1 });
    await client.readTicket('BILL-12');
    expect(waits).toEqual([1000, 1000]);
  });

  it('tracker down → retryable TrackerError', async () => {
    standIn.setDown('refuse');
    await expect(client.readTicket('BILL-12')).rejects.toMatchObject({ name: 'TrackerError', status: null, retryable: true });
    standIn.setDown('unavailable');
    await expect(client.readTicket('BILL-12')).rejects.toMatchObject({ status: 503, retryable: true });
  });

  it('posts and lists comments across pages', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 103; i++) ids.push(await client.postComment('BILL-12', `c${i}`));
    const comments = await client.listComments('BILL-12');
    expect(comments.map((c) => c.id)).toEqual(ids);
    expect(comments[0]).toEqual({ id: ids[0], body: 'c0', author: USER });
  });

  it('lists via search/jql on Cloud after the legacy search answers 410, and remembers it', async () => {
    standIn.addIssue('BILL-13', 'To Do', ['security']);
    standIn.addIssue('BILL-14', 'Ready for Agent', ['security']);
    standIn.addIssue('OTHER-1', 'Ready for Agent', ['security']);
    standIn.issues.get('BILL-12')!.labels.push('security');
    const found = await client.listTickets({ statuses: ['Ready for Agent'], labels: ['security'] });
    expect(found.map((t) => t.ticket)).toEqual(['BILL-12', 'BILL-14']);
    expect(found[0]).toMatchObject({ title: 'Issue BILL-12', url: `${standIn.siteUrl}/browse/BILL-12` });
    await client.listTickets({ statuses: ['Ready for Agent'] });
    const searches = standIn.requests.filter((r) => r.path.startsWith('/rest/api/2/search')).map((r) => r.path);
    expect(searches).toEqual(['/rest/api/2/search', '/rest/api/2/search/jql', '/rest/api/2/search/jql']);
  });

  it('lists via the legacy search on Data Center, paging by startAt', async () => {
    standIn.flavour = 'datacenter';
    for (let n = 100; n < 230; n++) standIn.addIssue(`BILL-${n}`, 'Ready for Agent');
    const found = await client.listTickets({ statuses: ['Ready for Agent'] });
    expect(found).toHaveLength(131);
    expect(standIn.requests.filter((r) => r.path === '/rest/api/2/search')).toHaveLength(2);
  });

  it('pages search/jql by nextPageToken on Cloud', async () => {
    for (let n = 100; n < 230; n++) standIn.addIssue(`BILL-${n}`, 'Ready for Agent');
    expect(await client.listTickets({ statuses: ['Ready for Agent'] })).toHaveLength(131);
    expect(standIn.requests.filter((r) => r.path === '/rest/api/2/search/jql')).toHaveLength(2);
  });

  it('quotes JQL literals', () => {
    expect(buildJql('BILL', { statuses: ['Say "hi"'], labels: ['a'] })).toBe('project = "BILL" AND status in ("Say \\"hi\\"") AND labels = "a" ORDER BY key ASC');
  });

  it('uses Bearer for a Data Center personal access token', async () => {
    standIn.pat = 'dcPersonalAccessToken1';
    await make('dcPersonalAccessToken1').readTicket('BILL-12');
    expect(standIn.requests.at(-1)!.headers.authorization).toBe('Bearer dcPersonalAccessToken1');
  });

  it('never puts credentials in error messages', async () => {
    const err = await make(`${USER}:wrongTokenValue1`).readTicket('BILL-12').then(unexpected, (e: unknown) => e as TrackerError);
    expect(err).toMatchObject({ status: 401, retryable: false });
    expect(err.message).not.toContain('wrongTokenValue1');
    standIn.failNext(1, { status: 400, body: { errorMessages: [`bad auth ${USER}:${API_TOKEN}`] } });
    const echoed = await client.readTicket('BILL-12').then(unexpected, (e: unknown) => e as TrackerError);
    expect(echoed.message).not.toContain(API_TOKEN);
  });
});

function unexpected(): never {
  throw new Error('expected the call to fail');
}
