import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitLabMergeRequestReviewsClient } from '../../../src/platforms/gitlab/gitlab-merge-request-reviews.client.js';
import { TrackerError } from '../../../src/platforms/tracker-client.js';
import { commitFiles, createBareRepository, git } from '../../stand-ins/git-repositories.js';
import { GitLabStandIn } from '../../stand-ins/gitlab-stand-in.js';

const TOKEN = 'glpat-ReviewSecretToken0042';
const MARKER = '<!-- pipeline-service:pr-review -->';
const BASE_FILES = { 'src/cart.ts': 'export const a = 1;\nexport const b = 2;\nexport const c = 3;\n', 'src/old-name.ts': 'one\ntwo\nthree\nfour\nfive\n', 'docs/gone.md': '# gone\n' };

describe('GitLabMergeRequestReviewsClient against the GitLab stand-in', () => {
  let standIn: GitLabStandIn;
  let client: GitLabMergeRequestReviewsClient;
  let dir: string;
  let bare: string;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gl-reviews-'));
    bare = join(dir, 'billing.git');
    createBareRepository(bare, { files: BASE_FILES });
    commitFiles(bare, 'feature', { 'src/cart.ts': 'export const a = 1;\nexport const b = 22;\nexport const c = 3;\nexport const d = 4;\n', 'src/old-name.ts': null, 'src/new-name.ts': 'one\ntwo\nthree\nfour\nFIVE\n', 'docs/gone.md': null, 'logo.png': 'PNG\0\x01\x02' }, 'Change', 'main');
    // The target moves on after the branch was cut: the diff is still against the merge base.
    commitFiles(bare, 'main', { 'unrelated.txt': 'later\n' }, 'Later on main');
    standIn = await new GitLabStandIn(TOKEN).start();
    standIn.mountGit('/fin/billing', { repository: bare, credential: { username: 'oauth2', password: TOKEN } });
    client = new GitLabMergeRequestReviewsClient({ repoUrl: 'https://gitlab.example/fin/billing', apiUrl: standIn.apiUrl, token: TOKEN, repository: 'billing', http: { sleep: async () => {}, maxAttempts: 1 } });
  });
  afterEach(async () => {
    await standIn.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads diff_refs, and a fork’s merge request by its merge-request ref', async () => {
    const iid = standIn.openPullRequest({ head: 'feature', author: 'ana' });
    const state = await client.read(iid);
    const mergeBase = git(['merge-base', 'main', 'feature'], { cwd: bare });
    expect(state).toMatchObject({ number: iid, head: 'feature', base: 'main', sameRepository: true, author: 'ana', fetchRef: `refs/merge-requests/${iid}/head`, baseSha: mergeBase });
    expect(state.headSha).toBe(git(['rev-parse', 'feature'], { cwd: bare }));
    expect(state.startSha).toBe(git(['rev-parse', 'main'], { cwd: bare }));

    const fork = join(dir, 'fork.git');
    git(['clone', '--quiet', '--bare', bare, fork]);
    const forkHead = commitFiles(fork, 'patch-1', { 'src/cart.ts': 'export const a = 10;\n' }, 'Fork change', 'main');
    const forked = standIn.openPullRequest({ head: 'patch-1', fork: { repository: fork, owner: 'contributor' } });
    expect(await client.read(forked)).toMatchObject({ sameRepository: false, headSha: forkHead, fetchRef: `refs/merge-requests/${forked}/head` });
    expect(git(['rev-parse', `refs/merge-requests/${forked}/head`], { cwd: bare })).toBe(forkHead);
  });

  it('lists the diffs with new-side lines: modified, renamed, deleted, binary; paged with X-Next-Page', async () => {
    const iid = standIn.openPullRequest({ head: 'feature' });
    const diff = await client.diff(iid);
    const byPath = new Map(diff.files.map((f) => [f.path, f]));
    expect(diff.files.map((f) => f.path).sort()).toEqual(['docs/gone.md', 'logo.png', 'src/cart.ts', 'src/new-name.ts']);
    expect(byPath.get('src/cart.ts')).toMatchObject({ status: 'modified', changedLines: [2, 4] });
    expect(byPath.get('src/new-name.ts')).toMatchObject({ status: 'renamed', previousPath: 'src/old-name.ts', changedLines: [5] });
    expect(byPath.get('docs/gone.md')).toMatchObject({ status: 'deleted', changedLines: [], previousPath: null });
    expect(byPath.get('logo.png')).toMatchObject({ status: 'added', changedLines: [], patch: null });

    const many = Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`gen/f${i}.txt`, `line ${i}\n`]));
    const big = standIn.openPullRequest({ head: 'generated', files: { base: { 'README.md': '# x\n' }, head: many } });
    standIn.clearRequests();
    expect((await client.diff(big)).files).toHaveLength(120);
    expect(standIn.requests.filter((r) => r.path.endsWith('/diffs')).map((r) => r.query.get('page'))).toEqual(['1', '2']);
  });

  it('posts the summary and positioned discussions; a refused position becomes a plain note', async () => {
    const iid = standIn.openPullRequest({ head: 'feature' });
    const posted = await client.postReview(iid, {
      summary: `${MARKER}\nSummary`,
      comments: [
        { path: 'src/cart.ts', line: 2, endLine: null, body: `${MARKER}\nWhy 22?` },
        { path: 'src/new-name.ts', line: 5, endLine: null, body: `${MARKER}\nRenamed and changed` },
        { path: 'src/cart.ts', line: 1, endLine: null, body: `${MARKER}\nunchanged line` },
      ],
    }, MARKER);
    expect(posted).toEqual({ anchored: 2, unanchored: 1, replaced: 0 });
    const notes = standIn.mergeRequests.reviews.notesOf(standIn.pullRequest(iid));
    expect(notes.map((n) => [n.username, n.position?.['new_path'] ?? null, n.position?.['new_line'] ?? null])).toEqual([
      ['pipeline-bot', null, null],
      ['pipeline-bot', 'src/cart.ts', 2],
      ['pipeline-bot', 'src/new-name.ts', 5],
      ['pipeline-bot', null, null],
    ]);
    expect(notes[1]!.position).toMatchObject({ old_path: 'src/cart.ts' });
    expect(notes[2]!.position).toMatchObject({ old_path: 'src/old-name.ts' });
    expect(notes[3]!.body).toContain('`src/cart.ts` line 1');
    expect(standIn.answers.filter((a) => a.path.endsWith('/discussions') && a.method === 'POST').map((a) => a.status)).toEqual([201, 201, 400]);
  });

  it('a re-review deletes the previous notes; a marker pasted by someone else survives', async () => {
    const iid = standIn.openPullRequest({ head: 'feature' });
    const draft = { summary: `${MARKER}\nFirst`, comments: [{ path: 'src/cart.ts', line: 4, endLine: null, body: `${MARKER}\nd?` }] };
    await client.postReview(iid, draft, MARKER);
    const pasted = standIn.addMergeRequestNote(iid, `the bot said ${MARKER}`, { username: 'gitlab-user' });
    expect(await client.postReview(iid, { ...draft, summary: `${MARKER}\nSecond` }, MARKER)).toEqual({ anchored: 1, unanchored: 0, replaced: 2 });
    const notes = standIn.mergeRequests.reviews.notesOf(standIn.pullRequest(iid));
    expect(notes.filter((n) => n.username === 'pipeline-bot').map((n) => n.body)).toEqual([`${MARKER}\nSecond`, `${MARKER}\nd?`]);
    expect(notes.some((n) => n.id === pasted)).toBe(true);
  });

  it('upsertComment edits the service’s own note instead of adding one', async () => {
    const iid = standIn.openPullRequest({ head: 'feature' });
    standIn.addMergeRequestNote(iid, `pasted ${MARKER}`);
    await client.upsertComment(iid, `${MARKER}\nScan: 2 findings`, MARKER);
    await client.upsertComment(iid, `${MARKER}\nScan: 0 findings`, MARKER);
    const notes = standIn.mergeRequests.reviews.notesOf(standIn.pullRequest(iid));
    expect(notes.map((n) => [n.username, n.body])).toEqual([['gitlab-user', `pasted ${MARKER}`], ['pipeline-bot', `${MARKER}\nScan: 0 findings`]]);
  });

  it('errors name the repository and never carry the token', async () => {
    const iid = standIn.openPullRequest({ head: 'feature' });
    standIn.failNext(1, { status: 500, body: { message: `echo PRIVATE-TOKEN ${TOKEN}` } });
    const err = await client.diff(iid).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrackerError);
    expect((err as TrackerError).message).toContain('repository billing');
    expect((err as TrackerError).message).not.toContain(TOKEN);
    await expect(client.read(99)).rejects.toMatchObject({ status: 404 });
  });
});
