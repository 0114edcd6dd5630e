import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildPollWiql } from '../../src/platforms/azure-devops/azure-devops-poll.js';
import { AzureDevOpsTrackerClient } from '../../src/platforms/azure-devops/azure-devops-tracker.client.js';
import type { PollQuery } from '../../src/platforms/tracker-client.js';
import { AzureDevOpsStandIn } from '../stand-ins/azure-devops-stand-in.js';

const PAT = 'adoPatSecretValue0123456789';
const MINUTE = 60_000;
const TRIGGERS = { statuses: ['Ready for Agent'], labels: ['agent'] };
const sweep: PollQuery = { ...TRIGGERS, updatedSince: null };

describe('Azure DevOps poll read (WIQL + batch reads) and trigger history (work item updates)', () => {
  let standIn: AzureDevOpsStandIn;
  let client: AzureDevOpsTrackerClient;

  beforeEach(async () => {
    standIn = await new AzureDevOpsStandIn(PAT).start();
    standIn.clock.set(new Date('2026-03-10T08:00:30.000Z'));
    client = new AzureDevOpsTrackerClient({
      organizationUrl: standIn.organizationUrl,
      teamProject: 'Shop',
      pat: PAT,
      http: { sleep: async () => {}, random: () => 0, maxAttempts: 2 },
    });
  });
  afterEach(() => standIn.stop());

  const wiqlRequests = () => standIn.requests.filter((r) => r.path.endsWith('/_apis/wit/wiql'));
  const batchRequests = () => standIn.requests.filter((r) => r.path.endsWith('/_apis/wit/workitems') && r.method === 'GET');

  it('finds a trigger state or a mapped tag (any case); neither, and finished work items with the tag, are left out', async () => {
    standIn.addWorkItem(201, 'Ready for Agent', ['frontend'], 'In a trigger state');
    standIn.addWorkItem(202, 'Active', ['agent']);
    standIn.addWorkItem(203, 'New', ['AGENT']);
    standIn.addWorkItem(204, 'Active', ['frontend']);
    standIn.addWorkItem(205, 'Closed', ['agent']);
    standIn.addWorkItem(206, 'New');
    const found = await client.pollTickets(sweep);
    expect(found.map((t) => t.ticket)).toEqual(['201', '202', '203']);
    expect(found[0]).toEqual({
      ticket: '201',
      status: 'Ready for Agent',
      labels: ['frontend'],
      title: 'In a trigger state',
      description: null,
      acceptanceCriteria: null,
      url: `${standIn.organizationUrl}/Shop/_workitems/edit/201`,
      concurrencyToken: '1',
      updatedAt: standIn.items.get(201)!.fields['System.ChangedDate'],
    });
    expect(standIn.requests).toHaveLength(2);
    const [wiql] = wiqlRequests();
    expect((wiql!.body as { query: string }).query).toBe(buildPollWiql(sweep));
    expect(wiql!.query.get('timePrecision')).toBeNull();
    expect(batchRequests()[0]!.query.get('fields')).toBe('System.State,System.Tags,System.Title,System.Description,System.ChangedDate');
  });

  it('a full sweep reads every match, 200 ids per batch read', async () => {
    for (let id = 1; id <= 450; id++) standIn.addWorkItem(id, id % 3 === 0 ? 'Active' : 'Ready for Agent', id % 3 === 0 ? ['agent'] : []);
    standIn.addWorkItem(999, 'Active');
    const found = await client.pollTickets(sweep);
    expect(found).toHaveLength(450);
    expect(found.map((t) => Number(t.ticket))).toEqual(Array.from({ length: 450 }, (_, i) => i + 1));
    expect(batchRequests().map((r) => r.query.get('ids')!.split(',').length)).toEqual([200, 200, 50]);
    expect(wiqlRequests()).toHaveLength(1);
  });

  it('with a cursor reads only what changed since (to the second, timePrecision=true): two requests', async () => {
    for (let id = 1; id <= 300; id++) standIn.addWorkItem(id, 'Ready for Agent');
    standIn.addWorkItem(1001, 'Active');
    standIn.addWorkItem(1002, 'New', ['frontend']);
    standIn.addWorkItem(1003, 'Active');
    standIn.clock.advance(10 * MINUTE);
    const cursor = standIn.clock.now();
    standIn.clock.advance(MINUTE);
    standIn.setState(1001, 'Ready for Agent');
    standIn.editTags(1002, { add: ['Agent'] });
    standIn.addComment(7, 'still waiting');
    standIn.setState(1003, 'Resolved');
    standIn.clearRequests();

    const found = await client.pollTickets({ ...TRIGGERS, updatedSince: cursor });
    expect(found.map((t) => t.ticket)).toEqual(['7', '1001', '1002']);
    expect(found[1]!.updatedAt).toBe(standIn.items.get(1001)!.fields['System.ChangedDate']);
    expect(standIn.requests.length).toBeLessThanOrEqual(3);
    expect(standIn.requests).toHaveLength(2);
    const [wiql] = wiqlRequests();
    expect(wiql!.query.get('timePrecision')).toBe('true');
    expect((wiql!.body as { query: string }).query).toContain("[System.ChangedDate] >= '2026-03-10T08:10:30Z'");

    // Nothing changed since: the WIQL alone.
    standIn.clearRequests();
    standIn.clock.advance(MINUTE);
    await expect(client.pollTickets({ ...TRIGGERS, updatedSince: standIn.clock.now() })).resolves.toEqual([]);
    expect(standIn.requests).toHaveLength(1);
  });

  it('quotes WIQL literals; nothing to look for is no request at all', async () => {
    const wiql = buildPollWiql({ statuses: ["Won't do"], labels: ["it's", 'b'], updatedSince: new Date('2026-03-10T08:10:30.999Z') });
    expect(wiql).toBe(
      "SELECT [System.Id] FROM WorkItems WHERE [System.TeamProject] = @project AND ([System.State] IN ('Won''t do') OR " +
        "(([System.Tags] CONTAINS 'it''s' OR [System.Tags] CONTAINS 'b') AND [System.State] NOT IN ('Closed', 'Removed', 'Done'))) " +
        "AND [System.ChangedDate] >= '2026-03-10T08:10:30Z' ORDER BY [System.Id] ASC",
    );
    standIn.addWorkItem(1, 'Active', ["it's"]);
    await expect(client.pollTickets({ statuses: [], labels: ["it's"], updatedSince: null })).resolves.toMatchObject([{ ticket: '1' }]);
    standIn.clearRequests();
    await expect(client.pollTickets({ statuses: [], labels: [], updatedSince: null })).resolves.toEqual([]);
    expect(standIn.requests).toHaveLength(0);
  });

  it('triggeredAt: the latest move into a trigger state, after moving out and back in', async () => {
    standIn.addWorkItem(301, 'Ready for Agent');
    standIn.clock.advance(5 * MINUTE);
    standIn.setState(301, 'Resolved');
    standIn.clock.advance(5 * MINUTE);
    standIn.setState(301, 'Ready for Agent');
    const backIn = standIn.items.get(301)!.fields['System.ChangedDate']!;
    standIn.clock.advance(5 * MINUTE);
    standIn.editTags(301, { add: ['frontend'] });
    await client.setStatus('301', 'Active');

    const trigger = { statuses: ['READY FOR AGENT'], labels: ['Agent'] };
    expect((await client.triggeredAt('301', trigger))?.toISOString()).toBe(backIn);
    const updates = standIn.requests.filter((r) => r.path === '/acme/Shop/_apis/wit/workItems/301/updates');
    expect(updates.map((r) => [r.query.get('$top'), r.query.get('$skip')])).toEqual([['200', '0']]);

    // Given the tag later (through the API, as the service would), the tag counts.
    standIn.clock.advance(MINUTE);
    const read = await client.readTicket('301');
    await client.replaceLifecycleLabel('301', 'service:pending', read);
    standIn.editTags(301, { add: ['AGENT'] });
    expect((await client.triggeredAt('301', trigger))?.toISOString()).toBe(standIn.items.get(301)!.fields['System.ChangedDate']);
    // Removing another tag while it stays is no new trigger.
    standIn.clock.advance(MINUTE);
    const tagged = standIn.items.get(301)!.fields['System.ChangedDate'];
    standIn.editTags(301, { remove: ['frontend'] });
    expect((await client.triggeredAt('301', trigger))?.toISOString()).toBe(tagged);
  });

  it('triggeredAt pages the updates to the end; never triggered is null; a missing work item fails', async () => {
    standIn.addWorkItem(401, 'New');
    standIn.setState(401, 'Ready for Agent');
    const entered = standIn.items.get(401)!.fields['System.ChangedDate'];
    for (let i = 0; i < 450; i++) {
      standIn.clock.advance(1000);
      standIn.concurrentEdit(401, (item) => (item.fields['System.Title'] = `title ${i}`));
    }
    expect((await client.triggeredAt('401', TRIGGERS))?.toISOString()).toBe(entered);
    const pages = standIn.requests.filter((r) => r.path.endsWith('/workItems/401/updates'));
    expect(pages.map((r) => r.query.get('$skip'))).toEqual(['0', '200', '400']);

    standIn.addWorkItem(402, 'New', ['frontend']);
    standIn.setState(402, 'Active');
    await expect(client.triggeredAt('402', TRIGGERS)).resolves.toBeNull();
    await expect(client.triggeredAt('403', TRIGGERS)).rejects.toMatchObject({ name: 'TrackerError', status: 404, retryable: false });
  });

  it('a tracker that is down fails the poll with a retryable TrackerError', async () => {
    standIn.setDown('unavailable');
    await expect(client.pollTickets(sweep)).rejects.toMatchObject({ name: 'TrackerError', status: 503, retryable: true });
  });
});
