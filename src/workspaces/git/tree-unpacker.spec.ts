import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import tar from 'tar-stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { unpackTree, UnsafeArchiveError, WholeTreeNeededError } from './tree-unpacker.js';

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
