import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitLabMergeRequestConversationsClient } from '../../../src/platforms/gitlab/gitlab-merge-request-conversations.client.js';
import { TrackerError } from '../../../src/platforms/tracker-client.js';
import { GitLabStandIn } from '../../stand-ins/gitlab-stand-in.js';

const TOKEN = 'glpat-ConversationSecret0042';
const at = (minute: number): string => new Date(Date.UTC(2026, 2, 1, 9, minute)).toISOString();

describe('GitLabMergeRequestConversationsClient against the GitLab stand-in', () => {
  let standIn: GitLabStandIn;
  let client: GitLabMergeRequestConversationsClient;

  beforeEach(async () => {
    standIn = await new GitLabStandIn(TOKEN).start();
    client = new GitLabMergeRequestConversationsClient({ repoUrl: 'https://gitlab.example/fin/billing', apiUrl: standIn.apiUrl, token: TOKEN, repository: 'billing', http: { sleep: async () => {}, maxAttempts: 1 } });
  });
  afterEach(() => standIn.stop());

  it('self is the token’s username, asked once', async () => {
    expect(await client.self()).toBe('pipeline-bot');
    await client.self();
    expect(standIn.requests.filter((r) => r.path === '/api/v4/user')).toHaveLength(1);
  });

  it('reads every note of every discussion: plain notes, threads with their resolution, system notes flagged', async () => {
    const iid = standIn.openPullRequest({ head: 'service/42' });
    standIn.addMergeRequestNote(iid, 'Looks close.', { username: 'ana', createdAt: at(1) });
    const open = standIn.startThread(iid, 'Off by one?', { username: 'ana', path: 'src/cart.ts', line: 4, createdAt: at(2) });
    const done = standIn.startThread(iid, 'Rename this.', { username: 'bo', createdAt: at(3) });
    standIn.replyInThread(iid, open, 'Still wrong.', { username: 'ana', createdAt: at(5) });
    standIn.resolveThread(iid, done);
    standIn.addMergeRequestNote(iid, 'added 1 commit', { username: 'pipeline-bot', system: true, createdAt: at(4) });

    const items = await client.discussion(iid);
    expect(items.map((i) => [i.author, i.body, i.system])).toEqual([
      ['ana', 'Looks close.', false],
      ['ana', 'Off by one?', false],
      ['bo', 'Rename this.', false],
      ['pipeline-bot', 'added 1 commit', true],
      ['ana', 'Still wrong.', false],
    ]);
    expect(items[0]).toMatchObject({ resolved: null, path: null, line: null, createdAt: at(1) });
    expect(items[1]).toMatchObject({ threadId: open, resolved: false, path: 'src/cart.ts', line: 4 });
    expect(items[4]).toMatchObject({ threadId: open, resolved: false, path: 'src/cart.ts', line: 4 });
    expect(items[2]).toMatchObject({ threadId: done, resolved: true, path: null });
    expect(items[3]).toMatchObject({ resolved: null });
  });

  it('resolving through the API (PUT discussions/:id?resolved=true) shows in the next read; lists page with X-Next-Page', async () => {
    const iid = standIn.openPullRequest({ head: 'service/42' });
    for (let i = 0; i < 130; i++) standIn.addMergeRequestNote(iid, `note ${i}`);
    const thread = standIn.startThread(iid, 'Please fix.', { username: 'ana' });
    standIn.clearRequests();
    expect((await client.discussion(iid)).filter((i) => i.threadId === thread).map((i) => i.resolved)).toEqual([false]);
    expect(standIn.requests.filter((r) => r.path.endsWith('/discussions')).map((r) => r.query.get('page'))).toEqual(['1', '2']);
    const res = await fetch(`${standIn.apiUrl}/projects/77/merge_requests/${iid}/discussions/${thread}?resolved=true`, { method: 'PUT', headers: { 'PRIVATE-TOKEN': TOKEN } });
    expect(res.status).toBe(200);
    expect((await client.discussion(iid)).filter((i) => i.threadId === thread).map((i) => i.resolved)).toEqual([true]);
  });

  it('reviewerState follows the reviewer: unreviewed, requested changes, approved; null for someone not listed', async () => {
    const iid = standIn.openPullRequest({ head: 'service/42' });
    expect(await client.reviewerState(iid, 'ana')).toBeNull();
    standIn.addReviewer(iid, 'ana');
    expect(await client.reviewerState(iid, 'ana')).toBe('unreviewed');
    standIn.reviewAct(iid, 'ana', 'requested_changes', at(10));
    expect(await client.reviewerState(iid, 'ANA')).toBe('requested_changes');
    expect((await client.discussion(iid)).at(-1)).toMatchObject({ author: 'ana', body: 'requested changes', system: true, createdAt: at(10) });
    standIn.reviewAct(iid, 'ana', 'approved', at(11));
    expect(await client.reviewerState(iid, 'ana')).toBe('approved');
    // Someone not listed gets GitLab's note, and no state.
    standIn.reviewAct(iid, 'cy', 'requested_changes');
    expect(await client.reviewerState(iid, 'cy')).toBeNull();
  });

  it('errors name the repository and never carry the token', async () => {
    standIn.failNext(1, { status: 500, body: { message: `echo ${TOKEN}` } });
    const err = await client.discussion(1).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrackerError);
    expect((err as TrackerError).message).toContain('repository billing');
    expect((err as TrackerError).message).not.toContain(TOKEN);
    await expect(client.reviewerState(99, 'ana')).rejects.toMatchObject({ status: 404 });
  });
});
