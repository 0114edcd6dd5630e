import { createHash, randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import tar from 'tar-stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { directoryEntries, packDirectory } from '../../sandbox/pack-directory.js';
import { tarEntries } from '../../sandbox/tar-entries.js';
import type { TreeEntry } from '../../sandbox/tree-entry.js';
import { unpackEntries, unpackTree, UnsafeArchiveError, WholeTreeNeededError } from './tree-unpacker.js';

type Entry = { name: string; content?: string; type?: 'file' | 'symlink' | 'directory' | 'link'; linkname?: string; mode?: number };

function archive(entries: Entry[]): Readable {
  const pack = tar.pack();
  for (const { name, content = '', type = 'file', linkname, mode } of entries) {
    if (type === 'file') pack.entry({ name, mode: mode ?? 0o644 }, content);
    else pack.entry({ name, type, linkname, mode });
  }
  pack.finalize();
  return Readable.from(pack, { objectMode: false });
}

describe('unpackTree', () => {
  let outside: string;
  let root: string;

  beforeEach(() => {
    outside = mkdtempSync(join(tmpdir(), 'unpack-'));
    root = join(outside, 'tree');
    mkdirSync(root);
  });
  afterEach(() => rmSync(outside, { recursive: true, force: true }));

  it('writes files with the executable bit, directories and symbolic links', async () => {
    await unpackTree(archive([
      { name: './', type: 'directory' },
      { name: './a/b.txt', content: 'b' },
      { name: 'run.sh', content: '#!/bin/sh', mode: 0o755 },
      { name: 'link', type: 'symlink', linkname: 'a/b.txt' },
      { name: 'copy', type: 'link', linkname: 'a/b.txt' },
    ]), root);
    expect(readFileSync(join(root, 'a/b.txt'), 'utf8')).toBe('b');
    expect(lstatSync(join(root, 'run.sh')).mode & 0o111).toBe(0o111);
    expect(readlinkSync(join(root, 'link'))).toBe('a/b.txt');
    expect(readFileSync(join(root, 'copy'), 'utf8')).toBe('b');
  });

  it('skips every .git path component, in any case and at any depth', async () => {
    const result = await unpackTree(archive([
      { name: '.git/hooks/post-commit', content: 'evil', mode: 0o755 },
      { name: '.git/config', content: '[core]' },
      { name: '.GIT/config', content: '[core]' },
      { name: 'sub/.git', content: 'gitdir: /etc' },
      { name: 'ok.txt', content: 'ok' },
    ]), root);
    expect(result.skippedGitEntries).toBe(4);
    expect(existsSync(join(root, '.git'))).toBe(false);
    expect(existsSync(join(root, '.GIT'))).toBe(false);
    expect(existsSync(join(root, 'sub/.git'))).toBe(false);
    expect(readFileSync(join(root, 'ok.txt'), 'utf8')).toBe('ok');
  });

  it.each([
    ['a parent path', [{ name: '../escaped.txt', content: 'x' }]],
    ['an absolute path', [{ name: '/tmp/escaped.txt', content: 'x' }]],
    ['a path through a symbolic link', [{ name: 'out', type: 'symlink', linkname: '..' }, { name: 'out/escaped.txt', content: 'x' }]],
    ['a hard link to a link leaving the tree', [{ name: 'out', type: 'symlink', linkname: '../secret' }, { name: 'copy', type: 'link', linkname: 'out' }]],
    ['a hard link to a parent path', [{ name: 'copy', type: 'link', linkname: '../secret' }]],
  ] as [string, Entry[]][])('refuses %s', async (_, entries) => {
    writeFileSync(join(outside, 'secret'), 'server secret');
    await expect(unpackTree(archive(entries), root)).rejects.toBeInstanceOf(UnsafeArchiveError);
    expect(existsSync(join(outside, 'escaped.txt'))).toBe(false);
    expect(existsSync(join(root, 'copy'))).toBe(false);
  });

  it('unpacks many files written in parallel, and lets a later entry replace an earlier directory', async () => {
    const files = Array.from({ length: 300 }, (_, i) => ({ name: `d${i % 7}/f${i}.txt`, content: `content ${i}\n`.repeat(i + 1) }));
    await unpackTree(archive([...files, { name: 'gone/x.txt', content: 'x' }, { name: 'gone', content: 'now a file' }]), root);
    for (const [i, file] of files.entries()) expect(readFileSync(join(root, file.name), 'utf8')).toBe(`content ${i}\n`.repeat(i + 1));
    expect(readFileSync(join(root, 'gone'), 'utf8')).toBe('now a file');
  });

  it('replaces a symbolic link by a file without writing through it', async () => {
    writeFileSync(join(outside, 'secret'), 'server secret');
    await unpackTree(archive([{ name: 'f', type: 'symlink', linkname: '../secret' }, { name: 'f', content: 'mine' }]), root);
    expect(readFileSync(join(outside, 'secret'), 'utf8')).toBe('server secret');
    expect(readFileSync(join(root, 'f'), 'utf8')).toBe('mine');
  });
});

describe('unpackTree: a stream with no bytes at all', () => {
  it('is refused rather than read as an empty tree (which would stage deleting every file)', async () => {
    await expect(unpackTree(Readable.from([]), mkdtempSync(join(tmpdir(), 'unpack-tree-empty-')))).rejects.toBeInstanceOf(UnsafeArchiveError);
  });

  describe('with `unchanged`', () => {
    const same = (path: string) => path.startsWith('same/');
    let root: string;
    beforeEach(() => {
      root = mkdtempSync(join(tmpdir(), 'unpack-kept-'));
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    it('leaves the files it names unwritten and lists them as kept; the others are written', async () => {
      const asked: string[] = [];
      const result = await unpackTree(archive([
        { name: 'same/a.txt', content: 'a' },
        { name: 'same/run.sh', content: '#!/bin/sh', mode: 0o755 },
        { name: 'new.txt', content: 'n' },
      ]), root, { unchanged: (path, mode) => (asked.push(`${path} ${mode}`), same(path)) });
      expect(asked).toEqual(['same/a.txt 100644', 'same/run.sh 100755', 'new.txt 100644']);
      expect([...result.kept].sort()).toEqual(['same/a.txt', 'same/run.sh']);
      expect(existsSync(join(root, 'same/a.txt'))).toBe(false);
      expect(readFileSync(join(root, 'new.txt'), 'utf8')).toBe('n');
    });

    it('treats a kept file as a file: nothing may go below it, and a later entry at its path replaces it', async () => {
      await expect(unpackTree(archive([{ name: 'same/x', content: 'x' }, { name: 'same/x/y', content: 'y' }]), root, { unchanged: (p) => same(p) && p === 'same/x' }))
        .rejects.toBeInstanceOf(UnsafeArchiveError);
      rmSync(root, { recursive: true, force: true });
      mkdirSync(root);
      const result = await unpackTree(archive([{ name: 'same/x', content: 'x' }, { name: 'same/x', type: 'symlink', linkname: 'elsewhere' }]), root, { unchanged: same });
      expect(result.kept.size).toBe(0);
      expect(readlinkSync(join(root, 'same/x'))).toBe('elsewhere');
    });

    it('makes no directory for kept files alone, and takes what was kept below a directory a later entry replaces', async () => {
      const result = await unpackTree(archive([
        { name: 'same/', type: 'directory' },
        { name: 'same/deep/', type: 'directory' },
        { name: 'same/deep/a.txt', content: 'a' },
        { name: 'other/b.txt', content: 'b' },
        { name: 'other/', type: 'directory' },
      ]), root, { unchanged: same });
      expect([...result.kept].sort()).toEqual(['same/deep/a.txt']);
      expect(existsSync(join(root, 'same'))).toBe(false);
      expect(readFileSync(join(root, 'other/b.txt'), 'utf8')).toBe('b');
      rmSync(root, { recursive: true, force: true });
      mkdirSync(root);
      const replaced = await unpackTree(archive([{ name: 'same/deep/a.txt', content: 'a' }, { name: 'same', type: 'symlink', linkname: 'elsewhere' }]), root, { unchanged: same });
      expect(replaced.kept.size).toBe(0);
      expect(readlinkSync(join(root, 'same'))).toBe('elsewhere');
      rmSync(root, { recursive: true, force: true });
      mkdirSync(root);
      // The planned directory is still checked: a kept file below a link is refused as before.
      await expect(unpackTree(archive([{ name: 'link', type: 'symlink', linkname: '/etc' }, { name: 'link/same', content: 'x' }]), root, { unchanged: () => true }))
        .rejects.toBeInstanceOf(UnsafeArchiveError);
    });

    it('asks for the whole tree when a hard link points at a kept file or a .gitattributes arrives', async () => {
      await expect(unpackTree(archive([{ name: 'same/a', content: 'a' }, { name: 'copy', type: 'link', linkname: 'same/a' }]), root, { unchanged: same }))
        .rejects.toBeInstanceOf(WholeTreeNeededError);
      rmSync(root, { recursive: true, force: true });
      mkdirSync(root);
      await expect(unpackTree(archive([{ name: 'same/a', content: 'a' }, { name: 'sub/.gitattributes', content: '* text' }]), root, { unchanged: same }))
        .rejects.toBeInstanceOf(WholeTreeNeededError);
    });
  });
});

describe('unpackEntries: a tree handed over as entries (an in-process sandbox)', () => {
  let outside: string;

  beforeEach(() => {
    outside = mkdtempSync(join(tmpdir(), 'unpack-entries-'));
  });
  afterEach(() => rmSync(outside, { recursive: true, force: true }));

  /** Every path under `dir` with what it is: a file's mode and bytes, a link's target. */
  function listing(dir: string, prefix = ''): string[] {
    return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
      const path = prefix ? `${prefix}/${entry.name}` : entry.name;
      const full = join(dir, path);
      if (entry.isSymbolicLink()) return [`${path} -> ${readlinkSync(full)}`];
      if (entry.isDirectory()) return [`${path}/`, ...listing(dir, path)];
      const hash = createHash('sha1').update(readFileSync(full)).digest('hex');
      return [`${path} ${(lstatSync(full).mode & 0o111) !== 0 ? 'x' : '-'} ${hash}`];
    });
  }

  it('unpacks the same tree as the archive of the same directory, under the same rules', async () => {
    const sandbox = join(outside, 'sandbox');
    mkdirSync(join(sandbox, 'src/deep'), { recursive: true });
    mkdirSync(join(sandbox, '.git/hooks'), { recursive: true });
    mkdirSync(join(sandbox, 'empty'));
    writeFileSync(join(sandbox, 'src/main.ts'), 'export {};\n');
    writeFileSync(join(sandbox, 'src/deep/run.sh'), '#!/bin/sh\n', { mode: 0o755 });
    writeFileSync(join(sandbox, 'mid.bin'), randomBytes(200 * 1024)); // read whole by the walk only past 64 KB: streamed
    writeFileSync(join(sandbox, 'big.bin'), randomBytes(1536 * 1024)); // past the unpacker's whole-file limit: streamed to disk
    writeFileSync(join(sandbox, '.git/hooks/post-commit'), 'evil', { mode: 0o755 });
    symlinkSync('src/main.ts', join(sandbox, 'link'));
    const viaEntries = join(outside, 'entries');
    const viaArchive = join(outside, 'archive');
    mkdirSync(viaEntries);
    mkdirSync(viaArchive);
    const fromEntries = await unpackEntries(directoryEntries(sandbox), viaEntries);
    const fromArchive = await unpackTree(packDirectory(sandbox), viaArchive);
    expect(fromEntries.skippedGitEntries).toBe(fromArchive.skippedGitEntries);
    expect(fromEntries.skippedGitEntries).toBe(3);
    const files = listing(viaEntries).filter((line) => !line.endsWith('/'));
    expect(files).toEqual(listing(viaArchive).filter((line) => !line.endsWith('/')));
    expect(files).toHaveLength(5);
    expect(files).toContain('link -> src/main.ts');
    expect(files.find((line) => line.startsWith('src/deep/run.sh'))).toMatch(/ x /);
  });

  it('refuses a streamed file whose length is not the one announced (it changed while read)', async () => {
    const root = join(outside, 'tree');
    mkdirSync(root);
    async function* shrunk(): AsyncGenerator<TreeEntry> {
      yield { name: 'big.bin', type: 'file', mode: 0o644, size: 3 * 1024 * 1024, open: () => Readable.from([Buffer.alloc(1024)]) };
    }
    await expect(unpackEntries(shrunk(), root)).rejects.toThrow(/changed while it was read/);
    async function* short(): AsyncGenerator<TreeEntry> {
      yield { name: 'small.txt', type: 'file', mode: 0o644, size: 100, open: () => Readable.from([Buffer.alloc(10)]) };
    }
    await expect(unpackEntries(short(), root)).rejects.toThrow(/changed while it was read/);
  });

  it('refuses an empty stream read as entries as it refuses an empty archive', async () => {
    const root = join(outside, 'tree');
    mkdirSync(root);
    await expect(unpackEntries(tarEntries(Readable.from([])), root)).rejects.toBeInstanceOf(UnsafeArchiveError);
  });
});
