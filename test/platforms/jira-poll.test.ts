import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildPollJql, jqlDateTime } from '../../src/platforms/jira/jira-poll.js';
import { JiraTrackerClient } from '../../src/platforms/jira/jira-tracker.client.js';
import type { PollQuery } from '../../src/platforms/tracker-client.js';
import { JiraStandIn } from '../stand-ins/jira-stand-in.js';

const USER = 'bot@acme.example';
const API_TOKEN = 'ATATT3xJiraSecretToken';
const MINUTE = 60_000;
const TRIGGERS = { statuses: ['Ready for Agent'], labels: ['agent'] };
const sweep: PollQuery = { ...TRIGGERS, updatedSince: null };

describe('Jira poll read (JQL search, both endpoints) and trigger history (changelog)', () => {
  let standIn: JiraStandIn;
  let client: JiraTrackerClient;

  const make = (projectKey: string | null = 'BILL'): JiraTrackerClient =>
    new JiraTrackerClient({ siteUrl: standIn.siteUrl, credentials: `${USER}:${API_TOKEN}`, projectKey, http: { sleep: async () => {}, random: () => 0, maxAttempts: 2 } });

  beforeEach(async () => {
    standIn = await new JiraStandIn(USER, API_TOKEN).start();
    standIn.clock.set(new Date('2026-03-10T08:00:30.000Z'));
    client = make();
  });
  afterEach(() => standIn.stop());

  const searches = () => standIn.requests.filter((r) => r.path.startsWith('/rest/api/2/search'));

  it('finds a trigger status or a mapped label (any case) in the project; neither, Done ones and other projects are left out', async () => {
    standIn.addIssue('BILL-1', 'Ready for Agent', ['payments'], 'In a trigger status');
    standIn.addIssue('BILL-2', 'In Progress', ['agent']);
    standIn.addIssue('BILL-3', 'To Do', ['Agent']);
    standIn.addIssue('BILL-4', 'To Do', ['frontend']);
    standIn.addIssue('BILL-5', 'Done', ['agent']);
    standIn.addIssue('OPS-1', 'Ready for Agent');
    const found = await client.pollTickets(sweep);
    expect(found.map((t) => t.ticket)).toEqual(['BILL-1', 'BILL-2', 'BILL-3']);
    expect(found[0]).toEqual({
      ticket: 'BILL-1',
      status: 'Ready for Agent',
      labels: ['payments'],
      title: 'In a trigger status',
      description: null,
      url: `${standIn.siteUrl}/browse/BILL-1`,
      concurrencyToken: null,
      updatedAt: new Date(standIn.issues.get('BILL-1')!.updated).toISOString(),
    });
    // A full sweep needs no time zone; Cloud: the removed /search once (410), then /search/jql.
    expect(standIn.requests.map((r) => r.path)).toEqual(['/rest/api/2/search', '/rest/api/2/search/jql']);
    const body = searches()[1]!.body as { jql: string; fields: string[] };
    expect(body.jql).toBe(buildPollJql('BILL', sweep, null));
    expect(body.fields).toEqual(['status', 'labels', 'summary', 'description', 'updated']);
  });

  for (const flavour of ['cloud', 'datacenter'] as const) {
    it(`pages a full sweep to the end (${flavour})`, async () => {
      standIn.flavour = flavour;
      for (let n = 1; n <= 250; n++) standIn.addIssue(`BILL-${n}`, n % 2 === 0 ? 'Ready for Agent' : 'In Progress', n % 2 === 0 ? [] : ['agent']);
      standIn.addIssue('BILL-999', 'To Do');
      const found = await client.pollTickets(sweep);
      expect(found.map((t) => t.ticket)).toEqual(Array.from({ length: 250 }, (_, i) => `BILL-${i + 1}`));
      if (flavour === 'cloud') {
        const pages = searches().filter((r) => r.path.endsWith('/jql'));
        expect(pages.map((r) => (r.body as { nextPageToken?: string }).nextPageToken ?? null)).toEqual([null, '100', '200']);
      } else {
        expect(searches().map((r) => (r.body as { startAt: number }).startAt)).toEqual([0, 100, 200]);
      }
    });
  }

  it('with a cursor reads only what changed, the cursor written in the user’s time zone to the minute; steady state is one request', async () => {
    standIn.timeZone = 'Asia/Kolkata'; // UTC+05:30
    for (let n = 1; n <= 150; n++) standIn.addIssue(`BILL-${n}`, 'Ready for Agent');
    standIn.addIssue('BILL-201', 'To Do');
    standIn.addIssue('BILL-202', 'In Progress', ['frontend']);
    standIn.addIssue('BILL-203', 'In Progress');
    await client.pollTickets(sweep); // learns the search endpoint
    standIn.clock.advance(10 * MINUTE);
    const cursor = standIn.clock.now(); // 08:10:30Z = 13:40 in Kolkata
    standIn.clock.advance(MINUTE);
    standIn.transitionIssue('BILL-201', 'Ready for Agent');
    standIn.editLabels('BILL-202', { add: ['AGENT'] });
    standIn.addComment('BILL-7', 'still waiting');
    standIn.transitionIssue('BILL-203', 'Done');
    standIn.clearRequests();

    const found = await client.pollTickets({ ...TRIGGERS, updatedSince: cursor });
    expect(found.map((t) => t.ticket)).toEqual(['BILL-7', 'BILL-201', 'BILL-202']);
    expect(found[1]!.updatedAt).toBe(new Date(standIn.issues.get('BILL-201')!.updated).toISOString());
    expect(standIn.requests.map((r) => r.path)).toEqual(['/rest/api/2/myself', '/rest/api/2/search/jql']);
    expect((searches()[0]!.body as { jql: string }).jql).toContain('updated >= "2026/03/10 13:40"');

    standIn.clearRequests();
    standIn.clock.advance(MINUTE);
    await expect(client.pollTickets({ ...TRIGGERS, updatedSince: standIn.clock.now() })).resolves.toEqual([]);
    expect(standIn.requests).toHaveLength(1);
  });

  it('writes JQL dates in the zone asked (an unknown zone: UTC twelve hours earlier) and escapes strings', () => {
    const at = new Date('2026-07-01T23:59:59.999Z');
    expect(jqlDateTime(at, 'America/New_York')).toBe('2026/07/01 19:59');
    expect(jqlDateTime(at, 'Asia/Kolkata')).toBe('2026/07/02 05:29');
    expect(jqlDateTime(at, 'Not/AZone')).toBe('2026/07/01 11:59');
    // 01:30 on 1 November 2026 happens twice in New York: written as 00:30, never read as the later one.
    expect(jqlDateTime(new Date('2026-11-01T05:30:00Z'), 'America/New_York')).toBe('2026/11/01 00:30');
    expect(jqlDateTime(new Date('2026-11-01T06:30:00Z'), 'America/New_York')).toBe('2026/11/01 01:30');
    expect(buildPollJql('BILL', { statuses: ['Say "hi"'], labels: ['a\\b'], updatedSince: at }, '2026/07/01 19:59')).toBe(
      'project = "BILL" AND (status in ("Say \\"hi\\"") OR (labels in ("a\\\\b") AND statusCategory != Done)) AND updated >= "2026/07/01 19:59" ORDER BY key ASC',
    );
    expect(buildPollJql('BILL', { statuses: [], labels: [], updatedSince: null }, null)).toBeNull();
  });

  it('triggeredAt: the latest move into a trigger status, after moving out and back in; then a label added', async () => {
    standIn.addIssue('BILL-7', 'To Do');
    standIn.clock.advance(MINUTE);
    standIn.transitionIssue('BILL-7', 'Ready for Agent');
    standIn.clock.advance(5 * MINUTE);
    await client.setStatus('BILL-7', 'Done');
    standIn.clock.advance(5 * MINUTE);
    await client.setStatus('BILL-7', 'Ready for Agent'); // through the API: recorded all the same
    const backIn = standIn.issues.get('BILL-7')!.updated;
    standIn.clock.advance(MINUTE);
    standIn.editLabels('BILL-7', { add: ['frontend'] });

    const trigger = { statuses: ['ready for agent'], labels: ['AGENT'] };
    expect((await client.triggeredAt('BILL-7', trigger))?.getTime()).toBe(backIn);
    standIn.clock.advance(MINUTE);
    standIn.editLabels('BILL-7', { add: ['agent'] });
    const labelled = standIn.issues.get('BILL-7')!.updated;
    expect((await client.triggeredAt('BILL-7', trigger))?.getTime()).toBe(labelled);
    standIn.clock.advance(MINUTE);
    standIn.editLabels('BILL-7', { remove: ['frontend'] }); // agent stays: no new trigger
    expect((await client.triggeredAt('BILL-7', trigger))?.getTime()).toBe(labelled);

    standIn.addIssue('BILL-8', 'To Do', ['agent']); // created with it: the changelog does not say
    standIn.transitionIssue('BILL-8', 'In Progress');
    await expect(client.triggeredAt('BILL-8', trigger)).resolves.toBeNull();
  });

  it('triggeredAt pages the Cloud changelog to the end', async () => {
    standIn.addIssue('BILL-9', 'To Do');
    standIn.transitionIssue('BILL-9', 'Ready for Agent');
    const entered = standIn.issues.get('BILL-9')!.updated;
    for (let i = 0; i < 230; i++) {
      standIn.clock.advance(1000);
      standIn.editLabels('BILL-9', i % 2 === 0 ? { add: ['x'] } : { remove: ['x'] });
    }
    expect((await client.triggeredAt('BILL-9', TRIGGERS))?.getTime()).toBe(entered);
    const pages = standIn.requests.filter((r) => r.path === '/rest/api/2/issue/BILL-9/changelog');
    expect(pages.map((r) => r.query.get('startAt'))).toEqual(['0', '100', '200']);
  });

  it('triggeredAt on Data Center: no changelog resource (404), so expand=changelog, and straight there afterwards', async () => {
    standIn.flavour = 'datacenter';
    standIn.addIssue('BILL-10', 'To Do');
    standIn.clock.advance(MINUTE);
    standIn.editLabels('BILL-10', { add: ['agent'] });
    const labelled = standIn.issues.get('BILL-10')!.updated;
    expect((await client.triggeredAt('BILL-10', TRIGGERS))?.getTime()).toBe(labelled);
    expect((await client.triggeredAt('BILL-10', TRIGGERS))?.getTime()).toBe(labelled);
    expect(standIn.requests.map((r) => `${r.path}?${r.query.toString()}`)).toEqual([
      '/rest/api/2/issue/BILL-10/changelog?startAt=0&maxResults=100',
      '/rest/api/2/issue/BILL-10?expand=changelog&fields=status',
      '/rest/api/2/issue/BILL-10?expand=changelog&fields=status',
    ]);
    await expect(client.triggeredAt('BILL-404', TRIGGERS)).rejects.toMatchObject({ name: 'TrackerError', status: 404 });
  });

  it('fails as TrackerError: no project key, refused credentials, tracker down', async () => {
    await expect(make(null).pollTickets(sweep)).rejects.toMatchObject({ name: 'TrackerError', retryable: false });
    const refused = new JiraTrackerClient({ siteUrl: standIn.siteUrl, credentials: `${USER}:wrong`, projectKey: 'BILL', http: { sleep: async () => {} } });
    await expect(refused.pollTickets({ ...TRIGGERS, updatedSince: new Date() })).rejects.toMatchObject({ name: 'TrackerError', status: 401, retryable: false });
    standIn.setDown('unavailable');
    await expect(client.pollTickets(sweep)).rejects.toMatchObject({ name: 'TrackerError', status: 503, retryable: true });
  });
});
