import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitLabTrackerClient, parseGitLabRepoUrl } from '../../src/platforms/gitlab/gitlab-tracker.client.js';
import type { TrackerError } from '../../src/platforms/tracker-client.js';
import { GitLabStandIn } from '../stand-ins/gitlab-stand-in.js';

const TOKEN = 'glpat-SecretGitLabToken42';

describe('GitLabTrackerClient against the GitLab stand-in', () => {
  let standIn: GitLabStandIn;
  let client: GitLabTrackerClient;
  let waits: number[];

  const make = (token = TOKEN): GitLabTrackerClient =>
    new GitLabTrackerClient({
      repoUrl: 'https://gitlab.example/fin/billing.git',
      apiUrl: standIn.apiUrl,
      token,
      statusLabels: ['ready-for-agent', 'done'],
      http: { sleep: async (ms) => void waits.push(ms), random: () => 0.5, maxAttempts: 3 },
    });

  beforeEach(async () => {
    standIn = await new GitLabStandIn(TOKEN).start();
    waits = [];
    client = make();
    standIn.addIssue(3, ['backend', 'ready-for-agent']);
  });
  afterEach(() => standIn.stop());

  it('derives the project path and API base from the repository URL', () => {
    expect(parseGitLabRepoUrl('https://gitlab.example/fin/sub/billing.git')).toEqual({ projectPath: 'fin/sub/billing', apiBase: 'https://gitlab.example/api/v4' });
    expect(parseGitLabRepoUrl('https://gitlab.com/a/b/-/issues/3').apiBase).toBe('https://gitlab.com/api/v4');
  });

  it('reads an issue (title and web link too) by URL-encoded project path with PRIVATE-TOKEN', async () => {
    await expect(client.readTicket('3')).resolves.toEqual({
      ticket: '3',
      status: 'ready-for-agent',
      labels: ['backend', 'ready-for-agent'],
      title: 'Issue 3',
      description: null,
      url: 'https://gitlab.example/fin/billing/-/issues/3',
      concurrencyToken: null,
    });
    const req = standIn.requests[0]!;
    expect(req.path).toBe('/api/v4/projects/fin%2Fbilling/issues/3');
    expect(req.headers['private-token']).toBe(TOKEN);
  });

  it('reads title, description and every user note oldest first across pages, system notes left out', async () => {
    standIn.addIssue(5, ['ready-for-agent'], 'opened', 'Invoices lose their VAT line', 'When an invoice has **two** VAT rates the second is dropped.');
    const ids: number[] = [];
    for (let i = 0; i < 120; i++) {
      ids.push(standIn.addNote(5, `note ${i}`, { username: i % 2 === 0 ? 'ana' : 'bo' }));
      if (i % 10 === 0) standIn.addNote(5, 'added ~"backend" label', { system: true });
    }
    await expect(client.readTicket('5')).resolves.toMatchObject({
      title: 'Invoices lose their VAT line',
      description: 'When an invoice has **two** VAT rates the second is dropped.',
    });
    const comments = await client.listComments('5');
    expect(comments.map((c) => c.id)).toEqual(ids.map(String));
    expect(comments[1]).toEqual({ id: String(ids[1]), body: 'note 1', author: 'bo' });
    const pages = standIn.requests.filter((r) => r.path.endsWith('/issues/5/notes'));
    expect(pages.map((r) => r.query.get('page'))).toEqual(['1', '2']);
    expect(pages.every((r) => r.query.get('sort') === 'asc' && r.query.get('order_by') === 'created_at')).toBe(true);
    const listed = await client.listTickets({ statuses: ['ready-for-agent'] });
    expect(listed.find((t) => t.ticket === '5')?.description).toBe('When an invoice has **two** VAT rates the second is dropped.');
  });

  it('changes lifecycle labels with add_labels/remove_labels only, leaving foreign labels alone', async () => {
    const read = await client.readTicket('3');
    await expect(client.replaceLifecycleLabel('3', 'service:enqueued', read)).resolves.toEqual({ outcome: 'Updated' });
    const put = standIn.requests.at(-1)!;
    expect(put.method).toBe('PUT');
    const body = put.body as Record<string, string>;
    expect(body['add_labels']).toBe('service:enqueued');
    expect(body['remove_labels']!.split(',').every((l) => l.startsWith('service:') && l !== 'service:enqueued')).toBe(true);
    expect(body).not.toHaveProperty('labels');
    expect(standIn.issues.get(3)!.labels).toEqual(['backend', 'ready-for-agent', 'service:enqueued']);
  });

  it('has no conditional: a concurrent edit is kept and the lifecycle label still lands (last write wins)', async () => {
    const read = await client.readTicket('3');
    standIn.concurrentEdit(3, (i) => i.labels.push('urgent', 'service:in-progress'));
    await expect(client.replaceLifecycleLabel('3', 'service:failed', read)).resolves.toEqual({ outcome: 'Updated' });
    expect(standIn.issues.get(3)!.labels).toEqual(['backend', 'ready-for-agent', 'urgent', 'service:failed']);
    await client.replaceLifecycleLabel('3', null, await client.readTicket('3'));
    expect(standIn.issues.get(3)!.labels).toEqual(['backend', 'ready-for-agent', 'urgent']);
  });

  it('honours Retry-After on 429, then succeeds', async () => {
    standIn.failNext(1, { status: 429, retryAfterSeconds: 7 });
    await expect(client.readTicket('3')).resolves.toMatchObject({ ticket: '3' });
    expect(waits).toEqual([7000]);
  });

  it('backs off exponentially on 503 without Retry-After, then fails retryable when the tracker stays down', async () => {
    standIn.setDown('unavailable');
    await expect(client.readTicket('3')).rejects.toMatchObject({ name: 'TrackerError', status: 503, retryable: true });
    expect(waits).toEqual([250, 500]); // 0.5 × 500 ms, 0.5 × 1000 ms
  });

  it('posts notes and lists them without system notes', async () => {
    await client.replaceLifecycleLabel('3', 'service:enqueued', await client.readTicket('3')); // creates a system note
    const id = await client.postComment('3', 'Run failed: exit 1');
    const comments = await client.listComments('3');
    expect(comments).toEqual([{ id, body: 'Run failed: exit 1', author: 'pipeline-bot' }]);
    expect(standIn.issues.get(3)!.notes.some((n) => n.system)).toBe(true);
  });

  it('setStatus adds the status label and removes the other status labels', async () => {
    await client.setStatus('3', 'done');
    expect(standIn.issues.get(3)!.labels).toEqual(['backend', 'done']);
  });

  it('lists opened issues by status (OR) and label (AND) across pages', async () => {
    for (let iid = 10; iid < 115; iid++) standIn.addIssue(iid, ['ready-for-agent', 'security']);
    standIn.addIssue(200, ['done', 'security']);
    standIn.addIssue(201, ['ready-for-agent', 'security'], 'closed');
    const found = await client.listTickets({ statuses: ['ready-for-agent', 'done'], labels: ['security'] });
    expect(found).toHaveLength(106);
    expect(found.at(-1)).toMatchObject({ ticket: '200', status: 'done', title: 'Issue 200', url: 'https://gitlab.example/fin/billing/-/issues/200' });
    expect(found.some((t) => t.ticket === '3' || t.ticket === '201')).toBe(false);
  });

  it('never puts the token in error messages', async () => {
    const err = await make('glpat-WrongToken000').readTicket('3').then(unexpected, (e: unknown) => e as TrackerError);
    expect(err).toMatchObject({ status: 401, retryable: false });
    expect(err.message).not.toContain('glpat-WrongToken000');
    standIn.failNext(1, { status: 422, body: { message: `bad PRIVATE-TOKEN ${TOKEN}` } });
    const echoed = await client.readTicket('3').then(unexpected, (e: unknown) => e as TrackerError);
    expect(echoed.message).not.toContain(TOKEN);
  });
});

function unexpected(): never {
  throw new Error('expected the call to fail');
}
