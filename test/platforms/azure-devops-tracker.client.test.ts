import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AzureDevOpsTrackerClient, buildWiql } from '../../src/platforms/azure-devops/azure-devops-tracker.client.js';
import { Platform } from '../../src/platforms/platform.js';
import { parseTicketCriteria } from '../../src/platforms/ticket-criteria.js';
import type { TrackerError } from '../../src/platforms/tracker-client.js';
import { AzureDevOpsStandIn } from '../stand-ins/azure-devops-stand-in.js';

const PAT = 'adoPatSecretValue0123456789';

describe('AzureDevOpsTrackerClient against the Azure DevOps stand-in', () => {
  let standIn: AzureDevOpsStandIn;
  let client: AzureDevOpsTrackerClient;
  let waits: number[];

  const make = (pat = PAT): AzureDevOpsTrackerClient =>
    new AzureDevOpsTrackerClient({
      organizationUrl: standIn.organizationUrl,
      teamProject: 'Shop',
      pat,
      http: { sleep: async (ms) => void waits.push(ms), random: () => 0, maxAttempts: 3 },
    });

  beforeEach(async () => {
    standIn = await new AzureDevOpsStandIn(PAT).start();
    waits = [];
    client = make();
    standIn.addWorkItem(101, 'Ready for Agent', ['frontend', 'service:pending']);
  });
  afterEach(() => standIn.stop());

  it('reads state, tags, title, web link and rev with Basic auth (empty user, PAT as password)', async () => {
    await expect(client.readTicket('101')).resolves.toEqual({
      ticket: '101',
      status: 'Ready for Agent',
      labels: ['frontend', 'service:pending'],
      title: 'Work item 101',
      description: null,
      acceptanceCriteria: null,
      url: 'https://dev.azure.com/acme/Shop/_workitems/edit/101',
      concurrencyToken: '1',
    });
    const req = standIn.requests[0]!;
    expect(req.path).toBe('/acme/Shop/_apis/wit/workitems/101');
    expect(req.query.get('api-version')).toBe('7.1');
    expect(req.query.get('$expand')).toBe('links');
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from(`:${PAT}`).toString('base64')}`);
  });

  it('reads the acceptance-criteria field (HTML, kept) on a single read; its list items are the ticket\'s criteria', async () => {
    const story = standIn.addWorkItem(120, 'Ready for Agent', [], 'A user story', '<div>As a shopper…</div>');
    story.fields['Microsoft.VSTS.Common.AcceptanceCriteria'] = '<div><ul><li>Badge shows the <b>new</b> count</li><li>Works offline &amp; online</li></ul></div>';
    const snapshot = await client.readTicket('120');
    expect(snapshot.acceptanceCriteria).toBe(story.fields['Microsoft.VSTS.Common.AcceptanceCriteria']);
    expect(parseTicketCriteria(Platform.AzureDevOps, snapshot).criteria).toEqual([
      { id: 'c1', text: 'Badge shows the new count' },
      { id: 'c2', text: 'Works offline & online' },
    ]);
  });

  it('reads title, System.Description (HTML, kept) and every comment oldest first, deleted ones left out', async () => {
    standIn.addWorkItem(110, 'Ready for Agent', [], 'Cart badge shows stale count', '<div>Open the cart, remove an item: <b>badge</b> keeps the old count.</div>');
    const ids: number[] = [];
    for (let i = 0; i < 450; i++) ids.push(standIn.addComment(110, `<p>comment ${i}</p>`, { uniqueName: i % 2 === 0 ? 'ana@acme.example' : 'bo@acme.example', deleted: i === 7 }));
    await expect(client.readTicket('110')).resolves.toMatchObject({
      title: 'Cart badge shows stale count',
      description: '<div>Open the cart, remove an item: <b>badge</b> keeps the old count.</div>',
    });
    const comments = await client.listComments('110');
    expect(comments.map((c) => c.id)).toEqual(ids.filter((_, i) => i !== 7).map(String));
    expect(comments[0]).toEqual({ id: String(ids[0]), body: '<p>comment 0</p>', author: 'ana@acme.example' });
    const pages = standIn.requests.filter((r) => r.path.endsWith('/workItems/110/comments'));
    expect(pages.map((r) => r.query.get('continuationToken'))).toEqual([null, '200', '400']);
    expect(pages.every((r) => r.query.get('order') === 'asc' && r.query.get('$top') === '200')).toBe(true);
  });

  it('a Bug without a description gives its repro steps (single read); a list carries System.Description', async () => {
    const bug = standIn.addWorkItem(111, 'Ready for Agent', [], 'Crash on save');
    bug.fields['Microsoft.VSTS.TCM.ReproSteps'] = '<ol><li>Save</li><li>Crash</li></ol>';
    standIn.addWorkItem(112, 'Ready for Agent', [], 'Listed', '<p>listed description</p>');
    expect((await client.readTicket('111')).description).toBe('<ol><li>Save</li><li>Crash</li></ol>');
    const listed = await client.listTickets({ statuses: ['Ready for Agent'] });
    expect(listed.map((t) => [t.ticket, t.description])).toEqual([['101', null], ['111', null], ['112', '<p>listed description</p>']]);
    const batch = standIn.requests.find((r) => r.path.endsWith('/_apis/wit/workitems') && r.method === 'GET')!;
    expect(batch.query.get('fields')).toBe('System.State,System.Tags,System.Title,System.Description');
  });

  it('replaces tags with a JSON Patch test on /rev and keeps foreign tags', async () => {
    const read = await client.readTicket('101');
    await expect(client.replaceLifecycleLabel('101', 'service:enqueued', read)).resolves.toEqual({ outcome: 'Updated' });
    const patch = standIn.requests.at(-1)!;
    expect(patch.headers['content-type']).toBe('application/json-patch+json');
    expect(patch.body).toEqual([
      { op: 'test', path: '/rev', value: 1 },
      { op: 'replace', path: '/fields/System.Tags', value: 'frontend; service:enqueued' },
    ]);
    expect(standIn.tagsOf(101)).toEqual(['frontend', 'service:enqueued']);
    expect(standIn.items.get(101)!.rev).toBe(2);
    await client.replaceLifecycleLabel('101', null, await client.readTicket('101'));
    expect(standIn.tagsOf(101)).toEqual(['frontend']);
  });

  for (const status of [412, 409] as const) {
    it(`a concurrent edit between read and write → PreconditionFailed (${status}), nothing applied, re-read succeeds`, async () => {
      standIn.testFailureStatus = status;
      const read = await client.readTicket('101');
      standIn.concurrentEdit(101, (item) => (item.fields['System.Tags'] = 'frontend; service:pending; hotfix'));
      await expect(client.replaceLifecycleLabel('101', 'service:enqueued', read)).resolves.toEqual({ outcome: 'PreconditionFailed' });
      expect(standIn.tagsOf(101)).toEqual(['frontend', 'service:pending', 'hotfix']);
      expect(standIn.items.get(101)!.rev).toBe(2);

      const reread = await client.readTicket('101');
      await expect(client.replaceLifecycleLabel('101', 'service:enqueued', reread)).resolves.toEqual({ outcome: 'Updated' });
      expect(standIn.tagsOf(101)).toEqual(['frontend', 'hotfix', 'service:enqueued']);
    });
  }

  it('honours Retry-After on 429, then succeeds', async () => {
    standIn.failNext(1, { status: 429, retryAfterSeconds: 3 });
    await client.readTicket('101');
    expect(waits).toEqual([3000]);
  });

  it('tracker down → retryable TrackerError', async () => {
    standIn.setDown('unavailable');
    await expect(client.readTicket('101')).rejects.toMatchObject({ name: 'TrackerError', status: 503, retryable: true });
    expect(standIn.requests).toHaveLength(3);
  });

  it('posts and lists comments (7.1-preview.4), following continuation tokens', async () => {
    standIn.commentsPageSize = 2;
    const ids = [await client.postComment('101', 'one'), await client.postComment('101', 'two'), await client.postComment('101', 'three')];
    expect(standIn.requests.at(-1)!.query.get('api-version')).toBe('7.1-preview.4');
    const comments = await client.listComments('101');
    expect(comments.map((c) => c.id)).toEqual(ids);
    expect(comments[2]).toEqual({ id: ids[2], body: 'three', author: 'pipeline-bot@acme.example' });
  });

  it('setStatus patches System.State; an unknown state is a non-retryable error', async () => {
    await client.setStatus('101', 'Resolved');
    expect((await client.readTicket('101')).status).toBe('Resolved');
    await expect(client.setStatus('101', 'Nonsense')).rejects.toMatchObject({ status: 400, retryable: false });
  });

  it('lists by WIQL (statuses OR, tags AND) with revs usable for a conditional write', async () => {
    standIn.addWorkItem(102, 'Active', ['security']);
    standIn.addWorkItem(103, 'Ready for Agent', ['security', 'frontend']);
    standIn.addWorkItem(104, 'Closed', ['security']);
    standIn.items.get(101)!.fields['System.Tags'] = 'frontend; security';
    const found = await client.listTickets({ statuses: ['Ready for Agent', 'Active'], labels: ['security'] });
    expect(found.map((t) => t.ticket)).toEqual(['101', '102', '103']);
    // A batch read cannot expand links next to `fields`: the web page is built from the organization URL.
    expect(found[1]).toMatchObject({ title: 'Work item 102', url: `${standIn.organizationUrl}/Shop/_workitems/edit/102` });
    const wiql = standIn.requests.find((r) => r.path.endsWith('/wiql'))!;
    expect((wiql.body as { query: string }).query).toBe(buildWiql({ statuses: ['Ready for Agent', 'Active'], labels: ['security'] }));
    await expect(client.replaceLifecycleLabel('103', 'service:enqueued', found[2]!)).resolves.toEqual({ outcome: 'Updated' });
  });

  it('escapes quotes in WIQL literals', () => {
    expect(buildWiql({ statuses: ["Won't fix"] })).toContain("[System.State] IN ('Won''t fix')");
  });

  it('never puts the PAT (raw or base64) in error messages', async () => {
    const err = await make('wrongPatValue987654').readTicket('101').then(unexpected, (e: unknown) => e as TrackerError);
    expect(err).toMatchObject({ status: 401, retryable: false });
    standIn.failNext(1, { status: 400, body: { message: `header was Basic ${Buffer.from(`:${PAT}`).toString('base64')} pat=${PAT}` } });
    const echoed = await client.readTicket('101').then(unexpected, (e: unknown) => e as TrackerError);
    expect(echoed.message).not.toContain(PAT);
    expect(echoed.message).not.toContain(Buffer.from(`:${PAT}`).toString('base64'));
  });
});

function unexpected(): never {
  throw new Error('expected the call to fail');
}
