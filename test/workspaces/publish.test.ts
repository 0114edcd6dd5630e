import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileAdditions } from '../../src/workspaces/git/added-lines.js';
import { WorkspaceError } from '../../src/workspaces/git/workspace-error.js';
import type { StagedChange } from '../../src/workspaces/git/workspace-types.js';
import { branchTip, commitFiles, fileAt, protectBranch, show, treeOf } from '../stand-ins/git-repositories.js';
import { WorkspaceFixture } from './workspace-fixture.js';

const AUTHOR = { authorName: 'pipeline-service', authorEmail: 'pipeline-service@users.noreply.localhost' };
const MESSAGE = 'code: Fix the checkout (42)\n\nRun-Id: 7f3c\nPipeline: code\n';

describe('RepositoryWorkspaces collect, commit and push against git http-backend', () => {
  let fx: WorkspaceFixture;

  beforeEach(async () => {
    fx = await new WorkspaceFixture().start({
      'README.md': '# shop\n',
      'src/app.js': 'console.log("app");\n',
      'src/old.js': 'old\n',
      'tool.sh': '#!/bin/sh\n',
      '.gitignore': 'node_modules/\n',
    });
  });
  afterEach(() => fx.stop());

  /** prepare → the run edits the sandbox → collect. */
  async function run(edit: (dir: string) => void, ticket = '42') {
    const sandbox = await fx.sandbox();
    const prepared = await fx.workspaces.prepare(fx.source(ticket), sandbox);
    edit(sandbox.dir);
    const change = await fx.workspaces.collect(prepared, sandbox);
    return { sandbox, prepared, change };
  }

  async function allAdded(change: StagedChange): Promise<FileAdditions[]> {
    const files: FileAdditions[] = [];
    for await (const file of change.addedLines()) files.push(file);
    return files;
  }

  it('creates the work branch with the author, message and trailers', async () => {
    const { change } = await run((dir) => writeFileSync(join(dir, 'src/app.js'), 'console.log("fixed");\nexport {};\n'));
    expect(change?.files).toEqual([{ path: 'src/app.js', status: 'modified' }]);
    const sha = await fx.workspaces.commit(change!, { message: MESSAGE, ...AUTHOR });
    expect(change!.commitSha).toBe(sha);
    await fx.workspaces.push(change!);
    expect(branchTip(fx.bare, 'service/42')).toBe(sha);
    expect(show(fx.bare, 'service/42', '%an <%ae>|%cn <%ce>|%P')).toBe(`pipeline-service <pipeline-service@users.noreply.localhost>|pipeline-service <pipeline-service@users.noreply.localhost>|${fx.initialCommit}`);
    expect(show(fx.bare, 'service/42', '%B')).toBe(MESSAGE.trim());
    expect(show(fx.bare, 'service/42', '%(trailers:key=Run-Id,valueonly)')).toBe('7f3c');
    expect(fileAt(fx.bare, 'service/42', 'src/app.js')).toBe('console.log("fixed");\nexport {};\n');
    expect(branchTip(fx.bare, 'main')).toBe(fx.initialCommit);
    await fx.workspaces.release(change!);
  });

  it('gives the added lines of the staged diff per file, for the secret scan', async () => {
    const { change } = await run((dir) => {
      writeFileSync(join(dir, 'src/app.js'), 'console.log("app");\nconst key = "AKIA0000";\n');
      writeFileSync(join(dir, 'new file "x".txt'), 'one\ntwo\r\n');
      rmSync(join(dir, 'src/old.js'));
    });
    const added = await allAdded(change!);
    expect(added).toEqual([
      { path: 'new file "x".txt', lines: [{ number: 1, text: 'one' }, { number: 2, text: 'two\r' }] },
      { path: 'src/app.js', lines: [{ number: 2, text: 'const key = "AKIA0000";' }] },
    ]);
    await fx.workspaces.release(change!);
  });

  it('resumes on a second run and pushes a fast-forward; the mirror already knows the pushed branch', async () => {
    const first = await run((dir) => writeFileSync(join(dir, 'README.md'), '# shop\nfirst\n'));
    const firstSha = await fx.workspaces.commit(first.change!, { message: 'first', ...AUTHOR });
    await fx.workspaces.push(first.change!);
    await fx.workspaces.release(first.prepared);
    fx.backend.clear();

    const second = await run((dir) => writeFileSync(join(dir, 'README.md'), '# shop\nfirst\nsecond\n'));
    expect(second.prepared).toMatchObject({ resumed: true, startBranch: 'service/42', commit: firstSha });
    // The mirror had the branch from our own push: the sync was a refs advertisement only.
    expect(fx.backend.posts('git-upload-pack')).toHaveLength(1);
    const secondSha = await fx.workspaces.commit(second.change!, { message: 'second', ...AUTHOR });
    await fx.workspaces.push(second.change!);
    expect(branchTip(fx.bare, 'service/42')).toBe(secondSha);
    expect(show(fx.bare, 'service/42', '%P')).toBe(firstSha);
  });

  it('answers diverged when the work branch moved on the remote during the run', async () => {
    commitFiles(fx.bare, 'service/42', { 'README.md': 'earlier run\n' }, 'earlier', 'main');
    const { change } = await run((dir) => writeFileSync(join(dir, 'README.md'), 'ours\n'));
    const theirs = commitFiles(fx.bare, 'service/42', { 'README.md': 'someone else\n' });
    await fx.workspaces.commit(change!, { message: 'ours', ...AUTHOR });
    const error = await fx.workspaces.push(change!).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkspaceError);
    expect(error).toMatchObject({ kind: 'diverged' });
    expect((error as Error).message).toContain('shop-web');
    expect(branchTip(fx.bare, 'service/42')).toBe(theirs);
  });

  it('answers diverged when the work branch appeared on the remote during a run started from the base branch', async () => {
    const { prepared, change } = await run((dir) => writeFileSync(join(dir, 'README.md'), 'ours\n'));
    expect(prepared.resumed).toBe(false);
    // Even pointing at our parent (a fast-forward for git): the run did not start from it.
    commitFiles(fx.bare, 'service/42', { 'other.txt': 'x\n' }, 'someone', 'main');
    await fx.workspaces.commit(change!, { message: 'ours', ...AUTHOR });
    await expect(fx.workspaces.push(change!)).rejects.toMatchObject({ kind: 'diverged' });
  });

  it('answers protected when the host declines the push', async () => {
    protectBranch(fx.bare, 'service/42');
    const { change } = await run((dir) => writeFileSync(join(dir, 'README.md'), 'ours\n'));
    await fx.workspaces.commit(change!, { message: 'ours', ...AUTHOR });
    const error = await fx.workspaces.push(change!).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'protected' });
    expect((error as Error).message).toMatch(/shop-web.*service\/42/);
    expect(branchTip(fx.bare, 'service/42')).toBeNull();
  });

  it('writes only the changed files into the scratch tree, and stages the same change as a whole tree would', async () => {
    const sandbox = await fx.sandbox();
    const prepared = await fx.workspaces.prepare(fx.source('43'), sandbox);
    writeFileSync(join(sandbox.dir, 'src/app.js'), 'console.log("changed");\n');
    writeFileSync(join(sandbox.dir, 'added.txt'), 'new\n');
    rmSync(join(sandbox.dir, 'src/old.js'));
    chmodSync(join(sandbox.dir, 'README.md'), 0o755);
    mkdirSync(join(sandbox.dir, 'node_modules'));
    writeFileSync(join(sandbox.dir, 'node_modules/ignored.js'), 'x\n');
    const change = await fx.workspaces.collect(prepared, sandbox);
    expect(change?.files).toEqual([
      { path: 'README.md', status: 'modified' },
      { path: 'added.txt', status: 'added' },
      { path: 'src/app.js', status: 'modified' },
      { path: 'src/old.js', status: 'deleted' },
    ]);
    const [scratch] = readdirSync(join(fx.dataDir, 'workspaces'));
    const written = readdirSync(join(fx.dataDir, 'workspaces', scratch!, 'tree'), { recursive: true }).map(String).sort();
    // tool.sh is unchanged: never written; .gitignore always is (staging reads it).
    expect(written).not.toContain('tool.sh');
    expect(written).toEqual(expect.arrayContaining(['.gitignore', 'README.md', 'added.txt', 'src/app.js']));
    const sha = await fx.workspaces.commit(change!, { message: 'ours', ...AUTHOR });
    await fx.workspaces.push(change!);
    expect(branchTip(fx.bare, 'service/43')).toBe(sha);
    expect(treeOf(fx.bare, 'service/43').get('README.md')).toBe('100755 blob');
    expect(fileAt(fx.bare, 'service/43', 'tool.sh')).toBe('#!/bin/sh\n');
    expect(fileAt(fx.bare, 'service/43', 'src/app.js')).toBe('console.log("changed");\n');
    expect([...treeOf(fx.bare, 'service/43').keys()].sort()).toEqual(['.gitignore', 'README.md', 'added.txt', 'src/app.js', 'tool.sh']);
    await fx.workspaces.release(change!);
  });

  it('writes the whole tree when it has a .gitattributes, with the same outcome', async () => {
    commitFiles(fx.bare, 'main', { '.gitattributes': '*.js text\n' }, 'attributes');
    const { change } = await run((dir) => writeFileSync(join(dir, 'src/app.js'), 'console.log("attributed");\n'), '44');
    expect(change?.files).toEqual([{ path: 'src/app.js', status: 'modified' }]);
    const [scratch] = readdirSync(join(fx.dataDir, 'workspaces'));
    expect(readdirSync(join(fx.dataDir, 'workspaces', scratch!, 'tree'), { recursive: true }).map(String)).toContain('tool.sh');
    await fx.workspaces.release(change!);
  });

  it('answers null for an unchanged tree and leaves no scratch repository behind', async () => {
    const { change } = await run(() => undefined);
    expect(change).toBeNull();
    expect(readdirSync(join(fx.dataDir, 'workspaces'))).toEqual([]);
  });

  it('round-trips deletions, executable bits, symbolic links and type changes', async () => {
    const { change } = await run((dir) => {
      rmSync(join(dir, 'src/old.js'));
      chmodSync(join(dir, 'tool.sh'), 0o755);
      symlinkSync('src/app.js', join(dir, 'app-link'));
      rmSync(join(dir, 'README.md'));
      symlinkSync('docs/README.md', join(dir, 'README.md'));
      mkdirSync(join(dir, 'docs'));
      writeFileSync(join(dir, 'docs/README.md'), '# moved\n');
    });
    expect(new Map(change!.files.map((f) => [f.path, f.status]))).toEqual(
      new Map([['README.md', 'type-changed'], ['app-link', 'added'], ['docs/README.md', 'added'], ['src/old.js', 'deleted'], ['tool.sh', 'modified']]),
    );
    await fx.workspaces.commit(change!, { message: 'shapes', ...AUTHOR });
    await fx.workspaces.push(change!);
    const tree = treeOf(fx.bare, 'service/42');
    expect(tree.get('tool.sh')).toBe('100755 blob');
    expect(tree.get('app-link')).toBe('120000 blob');
    expect(tree.get('README.md')).toBe('120000 blob');
    expect(fileAt(fx.bare, 'service/42', 'app-link')).toBe('src/app.js');
    expect(tree.has('src/old.js')).toBe(false);

    // And back into the next run's sandbox.
    const sandbox = await fx.sandbox();
    await fx.workspaces.prepare(fx.source('42'), sandbox);
    expect(existsSync(join(sandbox.dir, 'src/old.js'))).toBe(false);
  });

  it('ignores a .git directory from the sandbox: no planted hook runs, no planted config is read or committed', async () => {
    const marker = join(fx.root, 'hook-ran');
    const { change } = await run((dir) => {
      writeFileSync(join(dir, 'README.md'), 'changed\n');
      mkdirSync(join(dir, '.git/hooks'), { recursive: true });
      writeFileSync(join(dir, '.git/hooks/post-commit'), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
      writeFileSync(join(dir, '.git/hooks/pre-push'), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
      writeFileSync(join(dir, '.git/config'), `[core]\n\thooksPath = .git/hooks\n\tfsmonitor = touch ${marker}\n[user]\n\tname = Intruder\n`);
      mkdirSync(join(dir, 'vendor/lib/.git'), { recursive: true });
      writeFileSync(join(dir, 'vendor/lib/.git/HEAD'), 'ref: refs/heads/main\n');
      writeFileSync(join(dir, 'vendor/lib/index.js'), 'lib\n');
    });
    expect(change!.files.map((f) => f.path).sort()).toEqual(['README.md', 'vendor/lib/index.js']);
    await fx.workspaces.commit(change!, { message: 'ours', ...AUTHOR });
    await fx.workspaces.push(change!);
    expect(existsSync(marker)).toBe(false);
    expect([...treeOf(fx.bare, 'service/42').keys()].filter((path) => path.includes('.git/'))).toEqual([]);
    expect(show(fx.bare, 'service/42', '%an')).toBe('pipeline-service');
  });

  it('does not commit .gitignored files', async () => {
    const { change } = await run((dir) => {
      mkdirSync(join(dir, 'node_modules/left-pad'), { recursive: true });
      writeFileSync(join(dir, 'node_modules/left-pad/index.js'), 'module.exports = 1;\n');
      writeFileSync(join(dir, 'src/app.js'), 'changed\n');
    });
    expect(change!.files.map((f) => f.path)).toEqual(['src/app.js']);
    await fx.workspaces.commit(change!, { message: 'ours', ...AUTHOR });
    await fx.workspaces.push(change!);
    expect([...treeOf(fx.bare, 'service/42').keys()].some((path) => path.startsWith('node_modules'))).toBe(false);
  });

  it('removes scratch repositories on release, also twice and through the prepared tree', async () => {
    const { prepared, change } = await run((dir) => writeFileSync(join(dir, 'README.md'), 'x\n'));
    expect(readdirSync(join(fx.dataDir, 'workspaces'))).toHaveLength(1);
    await fx.workspaces.release(prepared);
    expect(readdirSync(join(fx.dataDir, 'workspaces'))).toEqual([]);
    await fx.workspaces.release(change!);
    await fx.workspaces.release(prepared);
  });

  it('makes the first collect\'s scratch repository at prepare, and removes it with a tree never collected', async () => {
    const kept = await fx.workspaces.prepare(fx.source('42'), await fx.sandbox());
    // Released at once, while its index may still be being read: nothing is left behind.
    await fx.workspaces.release(kept);
    expect(readdirSync(join(fx.dataDir, 'workspaces'))).toEqual([]);
    const lookOnly = await fx.workspaces.prepare(fx.source('42'), await fx.sandbox(), undefined, undefined, { collect: false });
    const waited = await fx.workspaces.prepare(fx.source('42'), await fx.sandbox());
    await expect.poll(() => readdirSync(join(fx.dataDir, 'workspaces')).length).toBe(1);
    await fx.workspaces.release(waited);
    await fx.workspaces.release(lookOnly);
    expect(readdirSync(join(fx.dataDir, 'workspaces'))).toEqual([]);
  });
});
