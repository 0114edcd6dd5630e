import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tarOf } from '../../test/support/tar-archives.js';
import { SyncFileWrites } from './sync-file-writes.js';
import { unpackInto as unpackWith } from './unpack-into.js';

let dir: string;
let outside: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'unpack-into-'));
  outside = mkdtempSync(join(tmpdir(), 'unpack-outside-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const modeOf = (path: string) => statSync(path).mode & 0o777;

// Small files are written synchronously until the disk is slow at it, then asynchronously: both ways hold the same rules.
describe.each([
  ['small files written synchronously', () => new SyncFileWrites()],
  ['asynchronously after the first file', () => new SyncFileWrites({ slowFileMs: -1, windowFiles: 1 })],
])('unpackInto, %s', (_mode, syncWrites) => {
  const unpackInto = (into: string, tar: Readable) => unpackWith(into, tar, syncWrites());

  it('makes files with their executable bit, directories (also implied ones) and symbolic links', async () => {
    await unpackInto(dir, tarOf([
      { name: './src/', type: 'directory' },
      { name: './src/main.ts', content: 'export {};\n', mode: 0o600 },
      { name: 'bin/run.sh', content: '#!/bin/sh\necho hi\n', mode: 0o750 },
      { name: 'deep/a/b/c.txt', content: 'c' },
      { name: '.env.example', content: 'A=1\n' },
      { name: 'main-link', type: 'symlink', linkname: 'src/main.ts' },
      { name: 'empty', content: '' },
    ]));
    expect(readFileSync(join(dir, 'src/main.ts'), 'utf8')).toBe('export {};\n');
    expect(modeOf(join(dir, 'src/main.ts'))).toBe(0o644);
    expect(modeOf(join(dir, 'bin/run.sh'))).toBe(0o755);
    expect(modeOf(join(dir, 'deep/a'))).toBe(0o755);
    expect(readFileSync(join(dir, 'deep/a/b/c.txt'), 'utf8')).toBe('c');
    expect(readFileSync(join(dir, '.env.example'), 'utf8')).toBe('A=1\n');
    expect(lstatSync(join(dir, 'main-link')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dir, 'main-link'))).toBe('src/main.ts');
    expect(readFileSync(join(dir, 'empty'), 'utf8')).toBe('');
  });

  it('replaces a FIFO a command left where a file goes, instead of waiting for a reader', async () => {
    execFileSync('mkfifo', [join(dir, 'second')]);
    await unpackInto(dir, tarOf([{ name: 'first', content: '1' }, { name: 'second', content: '2' }]));
    expect(lstatSync(join(dir, 'second')).isFile()).toBe(true);
    expect(readFileSync(join(dir, 'second'), 'utf8')).toBe('2');
  });

  it('overwrites files (content and mode) and replaces links without writing through them', async () => {
    writeFileSync(join(dir, 'script'), 'old and longer content', { mode: 0o755 });
    writeFileSync(join(outside, 'target'), 'outside');
    symlinkSync(join(outside, 'target'), join(dir, 'link-to-outside'));
    symlinkSync(join(outside, 'target'), join(dir, 'relinked'));
    await unpackInto(dir, tarOf([
      { name: 'script', content: 'new', mode: 0o644 },
      { name: 'link-to-outside', content: 'a file now' },
      { name: 'relinked', type: 'symlink', linkname: 'script' },
    ]));
    expect(readFileSync(join(dir, 'script'), 'utf8')).toBe('new');
    expect(modeOf(join(dir, 'script'))).toBe(0o644);
    expect(lstatSync(join(dir, 'link-to-outside')).isFile()).toBe(true);
    expect(readFileSync(join(dir, 'link-to-outside'), 'utf8')).toBe('a file now');
    expect(readlinkSync(join(dir, 'relinked'))).toBe('script');
    expect(readFileSync(join(outside, 'target'), 'utf8')).toBe('outside');
  });

  it('writes a large file whole, and lets later entries for a path win, in archive order', async () => {
    const large = Buffer.alloc(3 * 1024 * 1024 + 11, 'L');
    await unpackInto(dir, tarOf([
      { name: 'large.bin', content: large },
      { name: 'twice', content: 'first, and longer' },
      { name: 'twice', content: 'second' },
      { name: 'file-then-link', content: 'file' },
      { name: 'file-then-link', type: 'symlink', linkname: 'twice' },
      { name: 'file-then-dir', content: 'file' },
      { name: 'file-then-dir/', type: 'directory' },
      { name: 'file-then-dir/inside', content: 'inside' },
    ]));
    expect(readFileSync(join(dir, 'large.bin')).equals(large)).toBe(true);
    expect(readFileSync(join(dir, 'twice'), 'utf8')).toBe('second');
    expect(readlinkSync(join(dir, 'file-then-link'))).toBe('twice');
    expect(readFileSync(join(dir, 'file-then-dir/inside'), 'utf8')).toBe('inside');
  });

  it('accepts ".." that stays inside', async () => {
    await unpackInto(dir, tarOf([{ name: 'a/../b.txt', content: 'b' }]));
    expect(readFileSync(join(dir, 'b.txt'), 'utf8')).toBe('b');
  });

  describe('refuses an entry that would land outside, and writes nothing there', () => {
    it('climbing out with ".."', async () => {
      const escaping = `../${outside.split('/').at(-1)}/escaped`;
      await expect(unpackInto(dir, tarOf([{ name: escaping, content: 'x' }])))
        .rejects.toThrow(`tar entry "${escaping}" is refused: its path climbs out of the directory with ".."`);
      // A name of its own beside the temporary directory: another process may own a plain /tmp/x.
      const beside = `${dir.split('/').at(-1)}-x`;
      await expect(unpackInto(dir, tarOf([{ name: `a/../../${beside}`, content: 'x' }]))).rejects.toThrow(`"a/../../${beside}" is refused`);
      expect(existsSync(join(outside, 'escaped'))).toBe(false);
      expect(existsSync(join(dir, '..', beside))).toBe(false);
    });

    it('with an absolute path', async () => {
      const absolute = join(outside, 'absolute');
      await expect(unpackInto(dir, tarOf([{ name: absolute, content: 'x' }])))
        .rejects.toThrow(`tar entry "${absolute}" is refused: its path is absolute`);
      expect(existsSync(absolute)).toBe(false);
    });

    it('through a link the archive made, and stops there', async () => {
      const archive = tarOf([
        { name: 'evil', type: 'symlink', linkname: outside },
        { name: 'evil/file', content: 'x' },
        { name: 'after', content: 'never written' },
      ]);
      await expect(unpackInto(dir, archive))
        .rejects.toThrow('tar entry "evil/file" is refused: evil is a symbolic link, and nothing is written through one');
      expect(existsSync(join(outside, 'file'))).toBe(false);
      expect(existsSync(join(dir, 'after'))).toBe(false);
      expect(archive.destroyed).toBe(true);
    });

    it('once, with its reason told once, also behind a large file still being written', async () => {
      symlinkSync(outside, join(dir, 'out'));
      const archive = tarOf([{ name: 'big', content: Buffer.alloc(3_000_000, 1) }, { name: 'out/file', content: 'x' }]);
      const error = await unpackInto(dir, archive).catch((failure: Error) => failure);
      expect((error as Error).message).toBe('tar entry "out/file" is refused: out is a symbolic link, and nothing is written through one');
      expect(existsSync(join(outside, 'file'))).toBe(false);
    });

    it('through a link already in the directory, even one pointing inside it', async () => {
      symlinkSync(outside, join(dir, 'out'));
      await expect(unpackInto(dir, tarOf([{ name: 'out/deeper/file', content: 'x' }]))).rejects.toThrow('out is a symbolic link');
      expect(existsSync(join(outside, 'deeper'))).toBe(false);
      await unpackInto(dir, tarOf([{ name: 'src/', type: 'directory' }, { name: 'lib', type: 'symlink', linkname: 'src' }]));
      await expect(unpackInto(dir, tarOf([{ name: 'lib/x', content: 'x' }]))).rejects.toThrow('lib is a symbolic link');
      expect(existsSync(join(dir, 'src/x'))).toBe(false);
    });
  });

  it('replaces a link by a directory when an entry names it as one', async () => {
    symlinkSync(outside, join(dir, 'was-link'));
    await unpackInto(dir, tarOf([{ name: 'was-link/', type: 'directory' }, { name: 'was-link/file', content: 'in' }]));
    expect(lstatSync(join(dir, 'was-link')).isDirectory()).toBe(true);
    expect(readFileSync(join(dir, 'was-link/file'), 'utf8')).toBe('in');
    expect(existsSync(join(outside, 'file'))).toBe(false);
  });

  it('refuses a file below a file, and a directory in the way of a file', async () => {
    await expect(unpackInto(dir, tarOf([{ name: 'f', content: '1' }, { name: 'f/g', content: '2' }])))
      .rejects.toThrow('tar entry "f/g" is refused: f is not a directory');
    await expect(unpackInto(dir, tarOf([{ name: 'd/', type: 'directory' }, { name: 'd', content: '2' }])))
      .rejects.toThrow('tar entry "d" is refused: a directory is in the way');
  });

  it.each([
    { name: 'hard', type: 'link' as const, linkname: 'a' },
    { name: 'pipe', type: 'fifo' as const },
    { name: 'null', type: 'character-device' as const, devmajor: 1, devminor: 3 },
  ])('refuses a $type entry', async (entry) => {
    await expect(unpackInto(dir, tarOf([{ name: 'a', content: 'a' }, entry])))
      .rejects.toThrow(`tar entry "${entry.name}" is refused: ${entry.type} entries are not supported (only files, directories and symbolic links)`);
    expect(existsSync(join(dir, entry.name))).toBe(false);
  });

  it('rejects a truncated archive, one that is not a tar, and a failing stream', async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of tarOf([{ name: 'a', content: 'a'.repeat(2000) }])) chunks.push(chunk as Buffer);
    await expect(unpackInto(dir, Readable.from([Buffer.concat(chunks).subarray(0, 1024)]))).rejects.toThrow('Unexpected end of data');
    await expect(unpackInto(dir, Readable.from([Buffer.alloc(1024, 7)]))).rejects.toThrow('Invalid tar header');
    const failing = new Readable({ read() { this.destroy(new Error('the producer broke')); } });
    await expect(unpackInto(dir, failing)).rejects.toThrow('the producer broke');
  });
});

describe('unpackInto: a stream with no bytes at all', () => {
  it('is refused: an empty tree still arrives as an end-of-archive marker', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'unpack-empty-'));
    await expect(unpackWith(dir, Readable.from([]))).rejects.toThrow(/archive is empty/);
  });
});
