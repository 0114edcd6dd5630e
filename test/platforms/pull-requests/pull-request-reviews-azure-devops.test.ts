import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AzureDevOpsPullRequestReviewsClient } from '../../../src/platforms/azure-devops/azure-devops-pull-request-reviews.client.js';
import { TrackerError } from '../../../src/platforms/tracker-client.js';
import { AzureDevOpsStandIn } from '../../stand-ins/azure-devops-stand-in.js';
import { commitFiles, createBareRepository, git } from '../../stand-ins/git-repositories.js';

const PAT = 'adoReviewSecretPat0042';
const MARKER = '<!-- pipeline-service:pr-review -->';
const BASE_FILES = { 'src/cart.ts': 'export const a = 1;\nexport const b = 2;\nexport const c = 3;\n', 'src/old-name.ts': 'one\ntwo\nthree\nfour\nfive\n', 'docs/gone.md': '# gone\n' };

describe('AzureDevOpsPullRequestReviewsClient against the Azure DevOps stand-in', () => {
  let standIn: AzureDevOpsStandIn;
  let client: AzureDevOpsPullRequestReviewsClient;
  let dir: string;
  let bare: string;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ado-reviews-'));
    bare = join(dir, 'shop-web.git');
    createBareRepository(bare, { files: BASE_FILES });
    commitFiles(bare, 'feature', { 'src/cart.ts': 'export const a = 1;\nexport const b = 22;\nexport const c = 3;\nexport const d = 4;\n', 'src/old-name.ts': null, 'src/new-name.ts': 'one\ntwo\nthree\nfour\nFIVE\n', 'docs/gone.md': null, 'logo.png': 'PNG\0\x01\x02' }, 'Change', 'main');
    commitFiles(bare, 'main', { 'src/later.ts': 'later\n' }, 'Later on main');
    standIn = await new AzureDevOpsStandIn(PAT).start();
    standIn.mountGit('/acme/Shop/_git/shop-web', { repository: bare, credential: { username: null, password: PAT } });
    client = new AzureDevOpsPullRequestReviewsClient({ repoUrl: standIn.repositoryWebUrl, apiUrl: standIn.organizationUrl, pat: PAT, repository: 'shop-web', http: { sleep: async () => {}, maxAttempts: 1 } });
  });
  afterEach(async () => {
    await standIn.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads the last iteration’s commits, and a fork’s pull request with its merge ref', async () => {
    const id = standIn.openPullRequest({ head: 'feature', author: 'ana@acme.example' });
    const state = await client.read(id);
    expect(state).toMatchObject({ number: id, head: 'feature', base: 'main', sameRepository: true, author: 'ana@acme.example', fetchRef: `refs/pull/${id}/merge` });
    expect(state.headSha).toBe(git(['rev-parse', 'feature'], { cwd: bare }));
    expect(state.baseSha).toBe(git(['rev-parse', 'main'], { cwd: bare }));
    expect(git(['rev-parse', `refs/pull/${id}/merge^2`], { cwd: bare })).toBe(state.headSha);

    const fork = join(dir, 'fork.git');
    git(['clone', '--quiet', '--bare', bare, fork]);
    const forkHead = commitFiles(fork, 'patch-1', { 'README.md': 'fork\n' }, 'Fork change', 'main');
    const forked = standIn.openPullRequest({ head: 'patch-1', fork: { repository: fork, owner: 'contributor' } });
    expect(await client.read(forked)).toMatchObject({ sameRepository: false, headSha: forkHead });
    expect(git(['rev-parse', `refs/pull/${forked}/merge^2`], { cwd: bare })).toBe(forkHead);
  });

  it('computes the new-side lines from the files at the merge base and the head: modified, renamed, deleted, binary', async () => {
    const id = standIn.openPullRequest({ head: 'feature' });
    const diff = await client.diff(id);
    const byPath = new Map(diff.files.map((f) => [f.path, f]));
    // Against the merge base: main's later file is not the pull request's.
    expect([...byPath.keys()].sort()).toEqual(['docs/gone.md', 'logo.png', 'src/cart.ts', 'src/new-name.ts']);
    expect(byPath.get('src/cart.ts')).toMatchObject({ status: 'modified', changedLines: [2, 4] });
    expect(byPath.get('src/cart.ts')!.patch).toContain('+export const b = 22;');
    expect(byPath.get('src/new-name.ts')).toMatchObject({ status: 'renamed', previousPath: 'src/old-name.ts', changedLines: [5] });
    expect(byPath.get('docs/gone.md')).toMatchObject({ status: 'deleted', changedLines: [], patch: null });
    expect(byPath.get('logo.png')).toMatchObject({ status: 'added', changedLines: [], patch: null });
    expect(diff.truncated).toBe(false);
  });

  it('pages through the changes with $top/$skip until nextSkip is 0, and follows a new iteration', async () => {
    const many = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`gen/f${i}.txt`, `line ${i}\n`]));
    const id = standIn.openPullRequest({ head: 'generated', files: { base: { 'README.md': '# x\n' }, head: many } });
    standIn.git.reviews.maxChangesPage = 10;
    const requested: string[] = [];
    standIn.clearRequests();
    const diff = await client.diff(id);
    for (const r of standIn.requests.filter((q) => q.path.endsWith('/changes'))) requested.push(`${r.query.get('$skip')}`);
    expect(diff.files).toHaveLength(25);
    expect(diff.files.every((f) => f.status === 'added' && f.changedLines.length === 1)).toBe(true);
    expect(requested).toEqual(['0', '10', '20']);

    const pr = standIn.pullRequest(standIn.openPullRequest({ head: 'feature' }));
    await client.diff(pr.pullRequestId);
    commitFiles(bare, 'feature', { 'src/cart.ts': 'export const a = 1;\n' }, 'Second push');
    const again = await client.diff(pr.pullRequestId);
    expect(pr.iterations).toHaveLength(2);
    expect(again.headSha).toBe(git(['rev-parse', 'feature'], { cwd: bare }));
  });

  it('posts a summary thread and threads with right-file contexts; none approves', async () => {
    const id = standIn.openPullRequest({ head: 'feature' });
    const posted = await client.postReview(id, { summary: `${MARKER}\nSummary`, comments: [{ path: 'src/cart.ts', line: 2, endLine: null, body: `${MARKER}\nWhy 22?` }, { path: 'src/cart.ts', line: 2, endLine: 4, body: `${MARKER}\nRange` }] }, MARKER);
    expect(posted).toEqual({ anchored: 2, unanchored: 0, replaced: 0 });
    const threads = standIn.pullRequest(id).threads;
    expect(threads.map((t) => t.threadContext)).toEqual([
      null,
      { filePath: '/src/cart.ts', rightFileStart: { line: 2, offset: 1 }, rightFileEnd: { line: 2, offset: 1 } },
      { filePath: '/src/cart.ts', rightFileStart: { line: 2, offset: 1 }, rightFileEnd: { line: 4, offset: 1 } },
    ]);
    expect(threads.every((t) => t.status === 'active' && t.comments[0]!.uniqueName === 'pipeline-bot@acme.example')).toBe(true);
    expect(standIn.requests.some((r) => /reviewers|vote/i.test(r.path))).toBe(false);
  });

  it('a re-review deletes the previous comments and closes their threads; a pasted marker survives', async () => {
    const id = standIn.openPullRequest({ head: 'feature' });
    const draft = { summary: `${MARKER}\nFirst`, comments: [{ path: 'src/cart.ts', line: 4, endLine: null, body: `${MARKER}\nd?` }] };
    await client.postReview(id, draft, MARKER);
    const pasted = standIn.addThread(id, `copied from the bot: ${MARKER}`, { uniqueName: 'ana@acme.example' });
    expect(await client.postReview(id, { ...draft, summary: `${MARKER}\nSecond` }, MARKER)).toEqual({ anchored: 1, unanchored: 0, replaced: 2 });
    const threads = standIn.pullRequest(id).threads;
    const live = threads.filter((t) => t.comments.some((c) => !c.isDeleted && c.content.includes(MARKER) && c.uniqueName === 'pipeline-bot@acme.example'));
    expect(live).toHaveLength(2);
    expect(threads.filter((t) => t.status === 'closed')).toHaveLength(2);
    expect(threads.find((t) => t.id === pasted)).toMatchObject({ status: 'active', comments: [{ isDeleted: false }] });
  });

  it('upsertComment edits the service’s own general comment instead of adding a thread', async () => {
    const id = standIn.openPullRequest({ head: 'feature' });
    standIn.addThread(id, `pasted ${MARKER}`);
    await client.upsertComment(id, `${MARKER}\nScan: 2 findings`, MARKER);
    await client.upsertComment(id, `${MARKER}\nScan: 0 findings`, MARKER);
    const threads = standIn.pullRequest(id).threads;
    expect(threads.map((t) => [t.comments[0]!.uniqueName, t.comments[0]!.content])).toEqual([['ana@acme.example', `pasted ${MARKER}`], ['pipeline-bot@acme.example', `${MARKER}\nScan: 0 findings`]]);
  });

  it('errors name the repository and never carry the PAT', async () => {
    const id = standIn.openPullRequest({ head: 'feature' });
    standIn.failNext(1, { status: 500, body: { message: `echo ${PAT} ${Buffer.from(`:${PAT}`).toString('base64')}` } });
    const err = await client.diff(id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrackerError);
    expect((err as TrackerError).message).toContain('repository shop-web');
    expect((err as TrackerError).message).not.toContain(PAT);
    expect((err as TrackerError).message).not.toContain(Buffer.from(`:${PAT}`).toString('base64'));
    await expect(client.read(99)).rejects.toMatchObject({ status: 404 });
  });
});
