import { execFileSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InProcessBackend } from '../../src/sandbox/in-process.backend.js';
import type { InProcessSandbox } from '../../src/sandbox/in-process.sandbox.js';
import type { TreeEntry } from '../../src/sandbox/tree-entry.js';
import type { PreparedTree } from '../../src/workspaces/git/workspace-types.js';
import { commitFiles } from '../stand-ins/git-repositories.js';
import { WorkspaceFixture } from './workspace-fixture.js';

/**
 * Collect from the in-process sandbox, whose tree is marked right after the prepared commit is
 * put in: files still exactly as marked are kept as the commit's without being read. What any
 * write does to a file must still come back, also a write that keeps its size and sets its
 * modification time back, and files swapped by renames.
 */
describe('collect of a marked in-process tree', () => {
  const backend = new InProcessBackend('/usr/local/bin:/usr/bin:/bin');
  let fx: WorkspaceFixture;
  let sandbox: InProcessSandbox;

  beforeEach(async () => {
    fx = await new WorkspaceFixture().start({
      'README.md': '# shop\n',
      'src/app.js': 'console.log("app");\n',
      'x.txt': 'xxxx\n',
      'y.txt': 'yyyy\n',
      'tool.sh': { content: '#!/bin/sh\n', executable: true },
    });
    sandbox = await backend.create({ runId: `marked-${process.pid}-${Date.now()}`, name: 'shop-web', env: {} }) as InProcessSandbox;
  });
  afterEach(async () => {
    await sandbox.destroy();
    await fx.stop();
  });

  /**
   * Prepared as a run prepares it; the tree is marked again a moment later, as it would be for a
   * larger tree (files written within a clock tick or two of the mark are never vouched for, and
   * this whole tree is written within that).
   */
  async function prepare(ticket: string): Promise<PreparedTree> {
    const prepared = await fx.workspaces.prepare(fx.source(ticket), sandbox);
    expect(prepared.mark).toBeDefined();
    // The copy below is another tree to the workspaces: the scratch repository made for this one goes now.
    await fx.workspaces.release(prepared);
    await sleep(50);
    return { ...prepared, mark: await sandbox.markTree() };
  }

  async function entries(prepared: PreparedTree): Promise<Map<string, TreeEntry>> {
    const found = new Map<string, TreeEntry>();
    for await (const entry of sandbox.readTree(prepared.mark)) found.set(entry.name, entry);
    return found;
  }

  it('vouches for untouched files only, and stages a same-size write whose modification time was put back', async () => {
    const prepared = await prepare('51');
    const app = join(sandbox.workdir, 'src/app.js');
    const times = join(fx.root, 'times');
    execFileSync('cp', ['-p', app, times]); // the file's times, to the nanosecond
    const before = statSync(app, { bigint: true });
    writeFileSync(app, 'console.log("APP");\n'); // same length
    execFileSync('touch', ['-r', times, app]);
    expect(statSync(app, { bigint: true }).mtimeNs).toBe(before.mtimeNs);
    writeFileSync(join(sandbox.workdir, 'added.txt'), 'new\n');

    const read = await entries(prepared);
    expect(read.get('README.md')?.asMarked).toBe(true);
    expect(read.get('README.md')?.content).toBeUndefined(); // not read
    expect(read.get('tool.sh')?.asMarked).toBe(true);
    expect(read.get('src/app.js')?.asMarked).toBeUndefined();
    expect(read.get('src/app.js')?.content?.toString()).toBe('console.log("APP");\n');
    expect(read.get('added.txt')?.asMarked).toBeUndefined();

    const change = await fx.workspaces.collect(prepared, sandbox);
    expect(change?.files).toEqual([
      { path: 'added.txt', status: 'added' },
      { path: 'src/app.js', status: 'modified' },
    ]);
    await fx.workspaces.commit(change!, { message: 'marked', authorName: 'pipeline-service', authorEmail: 'ps@users.noreply.localhost' });
    await fx.workspaces.push(change!);
    await fx.workspaces.release(change!);
  });

  it('sees two files swapped by renames, though each has the other\'s size and times', async () => {
    const prepared = await prepare('52');
    const dir = sandbox.workdir;
    renameSync(join(dir, 'x.txt'), join(dir, 'swap'));
    renameSync(join(dir, 'y.txt'), join(dir, 'x.txt'));
    renameSync(join(dir, 'swap'), join(dir, 'y.txt'));
    expect(readFileSync(join(dir, 'x.txt'), 'utf8')).toBe('yyyy\n');
    const change = await fx.workspaces.collect(prepared, sandbox);
    expect(change?.files).toEqual([
      { path: 'x.txt', status: 'modified' },
      { path: 'y.txt', status: 'modified' },
    ]);
    await fx.workspaces.release(change!);
  });

  it('stages an executable bit taken away, and nothing for a tree left as marked', async () => {
    const prepared = await prepare('53');
    expect(await fx.workspaces.collect(prepared, sandbox)).toBeNull();
    chmodSync(join(sandbox.workdir, 'tool.sh'), 0o644);
    const change = await fx.workspaces.collect(prepared, sandbox);
    expect(change?.files).toEqual([{ path: 'tool.sh', status: 'modified' }]);
    await fx.workspaces.release(change!);
  });

  it('reads the files it vouches for when the tree must be written whole (a .gitattributes)', async () => {
    commitFiles(fx.bare, 'main', { '.gitattributes': '*.js text\n' }, 'attributes');
    const prepared = await prepare('55');
    writeFileSync(join(sandbox.workdir, 'src/app.js'), 'console.log("attributed");\n');
    const change = await fx.workspaces.collect(prepared, sandbox);
    expect(change?.files).toEqual([{ path: 'src/app.js', status: 'modified' }]);
    const [scratch] = readdirSync(join(fx.dataDir, 'workspaces'));
    expect(readFileSync(join(fx.dataDir, 'workspaces', scratch!, 'tree', 'tool.sh'), 'utf8')).toBe('#!/bin/sh\n');
    await fx.workspaces.release(change!);
  });

  it('does not mark a tree that will not be collected', async () => {
    const prepared = await fx.workspaces.prepare(fx.source('56'), sandbox, undefined, undefined, { collect: false });
    expect(prepared.mark).toBeUndefined();
    expect(prepared.commit).toBe(fx.initialCommit);
  });

  it('takes no mark of another sandbox: every file is read', async () => {
    const prepared = await prepare('54');
    const other = await backend.create({ runId: `other-${process.pid}-${Date.now()}`, name: 'other', env: {} });
    try {
      const foreign = await other.markTree!();
      const read = [];
      for await (const entry of sandbox.readTree(foreign)) read.push(entry);
      expect(read.filter((e) => e.type === 'file')).toHaveLength(5);
      expect(read.some((e) => e.asMarked)).toBe(false);
    } finally {
      await other.destroy();
    }
    expect(await fx.workspaces.collect(prepared, sandbox)).toBeNull();
  });
});
