import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitHubPullRequestReviewsClient } from '../../../src/platforms/github/github-pull-request-reviews.client.js';
import { TrackerError } from '../../../src/platforms/tracker-client.js';
import { commitFiles, createBareRepository, git } from '../../stand-ins/git-repositories.js';
import { GitHubStandIn } from '../../stand-ins/github-stand-in.js';

const TOKEN = 'ghp_ReviewSecretToken0042';
const MARKER = '<!-- pipeline-service:pr-review -->';
const BASE_FILES = { 'src/cart.ts': 'export const a = 1;\nexport const b = 2;\nexport const c = 3;\n', 'src/old-name.ts': 'one\ntwo\nthree\nfour\nfive\n', 'docs/gone.md': '# gone\n' };

describe('GitHubPullRequestReviewsClient against the GitHub stand-in', () => {
  let standIn: GitHubStandIn;
  let client: GitHubPullRequestReviewsClient;
  let dir: string;
  let bare: string;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gh-reviews-'));
    bare = join(dir, 'shop-web.git');
    createBareRepository(bare, { files: BASE_FILES });
    commitFiles(bare, 'feature', { 'src/cart.ts': 'export const a = 1;\nexport const b = 22;\nexport const c = 3;\nexport const d = 4;\n', 'src/old-name.ts': null, 'src/new-name.ts': 'one\ntwo\nthree\nfour\nfive\n', 'docs/gone.md': null, 'logo.png': 'PNG\0\x01\x02' }, 'Change', 'main');
    standIn = await new GitHubStandIn(TOKEN).start();
    standIn.mountGit('/acme/shop-web', { repository: bare, credential: { username: 'x-access-token', password: TOKEN } });
    client = new GitHubPullRequestReviewsClient({ repoUrl: 'https://github.com/acme/shop-web', apiUrl: standIn.apiUrl, token: TOKEN, repository: 'shop-web', http: { sleep: async () => {}, maxAttempts: 1 } });
  });
  afterEach(async () => {
    await standIn.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads a pull request with its head and base commits, and a fork’s by its pull ref', async () => {
    const number = standIn.openPullRequest({ head: 'feature', author: 'ana' });
    const state = await client.read(number);
    expect(state).toMatchObject({ number, head: 'feature', base: 'main', sameRepository: true, author: 'ana', fetchRef: `refs/pull/${number}/head` });
    expect(state.headSha).toBe(git(['rev-parse', 'refs/heads/feature'], { cwd: bare }));
    expect(state.baseSha).toBe(git(['rev-parse', 'refs/heads/main'], { cwd: bare }));
    expect(state.startSha).toBe(state.baseSha);

    const fork = join(dir, 'fork.git');
    git(['clone', '--quiet', '--bare', bare, fork]);
    const forkHead = commitFiles(fork, 'patch-1', { 'src/cart.ts': 'export const a = 10;\n' }, 'Fork change', 'main');
    const forked = standIn.openPullRequest({ head: 'patch-1', fork: { repository: fork, owner: 'contributor' } });
    const forkState = await client.read(forked);
    expect(forkState).toMatchObject({ sameRepository: false, headSha: forkHead, fetchRef: `refs/pull/${forked}/head` });
    expect(git(['rev-parse', `refs/pull/${forked}/head`], { cwd: bare })).toBe(forkHead);
    expect((await client.diff(forked)).files.map((f) => f.path)).toEqual(['src/cart.ts']);
  });

  it('lists the changed files with new-side lines: modified, renamed, deleted, binary', async () => {
    const number = standIn.openPullRequest({ head: 'feature' });
    const diff = await client.diff(number);
    expect(diff.truncated).toBe(false);
    const byPath = new Map(diff.files.map((f) => [f.path, f]));
    expect(byPath.get('src/cart.ts')).toMatchObject({ status: 'modified', previousPath: null, changedLines: [2, 4] });
    expect(byPath.get('src/cart.ts')!.patch).toContain('+export const b = 22;');
    expect(byPath.get('src/new-name.ts')).toMatchObject({ status: 'renamed', previousPath: 'src/old-name.ts', changedLines: [], patch: null });
    expect(byPath.get('docs/gone.md')).toMatchObject({ status: 'deleted', changedLines: [] });
    expect(byPath.get('logo.png')).toMatchObject({ status: 'added', changedLines: [], patch: null });
  });

  it('pages through the files (Link headers) and says when GitHub stopped listing', async () => {
    const many = Object.fromEntries(Array.from({ length: 130 }, (_, i) => [`gen/f${i}.txt`, `line ${i}\n`]));
    const number = standIn.openPullRequest({ head: 'generated', files: { base: { 'README.md': '# x\n' }, head: many } });
    const diff = await client.diff(number);
    expect(diff.files).toHaveLength(130);
    expect(diff.files.every((f) => f.status === 'added' && f.changedLines.length === 1)).toBe(true);
    expect(standIn.requests.filter((r) => r.path.endsWith('/files')).map((r) => r.query.get('page'))).toEqual([null, '2']);

    standIn.pulls.reviews.maxListedFiles = 100;
    expect(await client.diff(number)).toMatchObject({ truncated: true, files: expect.any(Array) });
    expect((await client.diff(number)).files).toHaveLength(100);
  });

  it('posts one COMMENT review at the head with comments anchored on new-side lines', async () => {
    const number = standIn.openPullRequest({ head: 'feature' });
    const head = git(['rev-parse', 'refs/heads/feature'], { cwd: bare });
    const posted = await client.postReview(number, { summary: `${MARKER}\nLooks fine overall.`, comments: [{ path: 'src/cart.ts', line: 2, endLine: null, body: `${MARKER}\nWhy 22?` }, { path: 'src/cart.ts', line: 3, endLine: 4, body: `${MARKER}\nThese two.` }] }, MARKER);
    expect(posted).toEqual({ anchored: 2, unanchored: 0, replaced: 0 });
    const [review] = standIn.pulls.reviews.reviews;
    expect(review).toMatchObject({ event: 'COMMENT', state: 'COMMENTED', commitId: head, login: 'pipeline-bot' });
    expect(standIn.pulls.reviews.comments.map((c) => [c.path, c.startLine, c.line, c.side])).toEqual([['src/cart.ts', null, 2, 'RIGHT'], ['src/cart.ts', 3, 4, 'RIGHT']]);
  });

  it('moves a comment GitHub will not anchor (422) into the summary and keeps the others inline', async () => {
    const number = standIn.openPullRequest({ head: 'feature' });
    const posted = await client.postReview(number, { summary: `${MARKER}\nSummary`, comments: [{ path: 'src/cart.ts', line: 2, endLine: null, body: `${MARKER}\nok` }, { path: 'src/cart.ts', line: 40, endLine: null, body: `${MARKER}\nnot in the diff` }] }, MARKER);
    expect(posted).toEqual({ anchored: 1, unanchored: 1, replaced: 0 });
    expect(standIn.answers.filter((a) => a.method === 'POST' && a.path.endsWith('/reviews')).map((a) => a.status)).toEqual([422, 200]);
    expect(standIn.pulls.reviews.reviews).toHaveLength(1);
    expect(standIn.pulls.reviews.reviews[0]!.body).toContain('`src/cart.ts` line 40');
    expect(standIn.pulls.reviews.comments).toHaveLength(1);
  });

  it('a re-review replaces the previous one; a marker pasted by someone else survives', async () => {
    const number = standIn.openPullRequest({ head: 'feature' });
    const draft = { summary: `${MARKER}\nFirst`, comments: [{ path: 'src/cart.ts', line: 2, endLine: null, body: `${MARKER}\nnote` }] };
    await client.postReview(number, draft, MARKER);
    const pasted = standIn.pulls.reviews.addComment(number, { path: 'src/cart.ts', line: 4, body: `quoting the bot: ${MARKER}`, login: 'octo-user' });
    const again = await client.postReview(number, { ...draft, summary: `${MARKER}\nSecond` }, MARKER);
    expect(again).toEqual({ anchored: 1, unanchored: 0, replaced: 2 });
    const ours = standIn.pulls.reviews.comments.filter((c) => c.login === 'pipeline-bot');
    expect(ours).toHaveLength(1);
    expect(standIn.pulls.reviews.comments.some((c) => c.id === pasted)).toBe(true);
    const reviews = standIn.pulls.reviews.reviews;
    expect(reviews.map((r) => r.body.includes(MARKER))).toEqual([false, true]);
    expect(reviews[0]!.body).toMatch(/Superseded by the review of/);
    expect(reviews.every((r) => r.event === 'COMMENT')).toBe(true);
    // A third review touches the live one only: the superseded body is left alone.
    expect((await client.postReview(number, draft, MARKER)).replaced).toBe(2);
  });

  it('upsertComment edits the service’s own conversation comment instead of adding one', async () => {
    const number = standIn.openPullRequest({ head: 'feature' });
    standIn.addComment(number, `someone pasted ${MARKER}`, 'octo-user');
    await client.upsertComment(number, `${MARKER}\nScan: 2 findings`, MARKER);
    await client.upsertComment(number, `${MARKER}\nScan: 0 findings`, MARKER);
    const comments = standIn.pullRequest(number).comments;
    expect(comments.map((c) => [c.login, c.body])).toEqual([['octo-user', `someone pasted ${MARKER}`], ['pipeline-bot', `${MARKER}\nScan: 0 findings`]]);
  });

  it('errors name the repository, keep the status and never carry the token', async () => {
    const number = standIn.openPullRequest({ head: 'feature' });
    standIn.failNext(1, { status: 500, body: { message: `upstream echoed Bearer ${TOKEN}` } });
    const err = await client.read(number).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrackerError);
    expect((err as TrackerError).message).toContain('repository shop-web');
    expect((err as TrackerError).message).not.toContain(TOKEN);
    await expect(client.read(999)).rejects.toMatchObject({ status: 404 });
    await expect(client.diff(0)).rejects.toBeInstanceOf(TrackerError);
  });
});
