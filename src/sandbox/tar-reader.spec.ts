import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { type ReadEntry, readTar, tarOf } from '../../test/support/tar-archives.js';
import { TarReader } from './tar-reader.js';

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The reader's entries, the archive fed in chunks of `size` bytes. */
function readInChunks(archive: Buffer, size: number): ReadEntry[] {
  const reader = new TarReader();
  const entries: ReadEntry[] = [];
  let parts: Buffer[] = [];
  for (let at = 0; at < archive.length; at += size) {
    for (const event of reader.read(archive.subarray(at, at + size))) {
      if (event.kind === 'header') {
        const { name, type, mode, size: bytes, linkname } = event.header;
        entries.push({ name, type: type ?? ('unknown' as never), mode, size: bytes, linkname, content: '' });
        parts = [];
      } else if (event.kind === 'data') parts.push(Buffer.from(event.bytes));
      else entries.at(-1)!.content = Buffer.concat(parts).toString();
    }
  }
  reader.finish();
  return entries;
}

/** Changes a header block of `archive` at `offset`, then sets its checksum again. */
function rewriteHeader(archive: Buffer, offset: number, change: (block: Buffer) => void): void {
  const block = archive.subarray(offset, offset + 512);
  change(block);
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += block[i]!;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
}

const work = mkdtempSync(join(tmpdir(), 'tar-reader-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('TarReader reads what tar-stream reads', () => {
  const longDirectory = `${'d'.repeat(80)}/${'e'.repeat(80)}`;
  const entries = [
    { name: 'empty', content: '' },
    { name: 'one', content: 'x' },
    { name: 'block', content: 'b'.repeat(512) },
    { name: 'block-and-one', content: 'c'.repeat(513), mode: 0o755 },
    { name: 'big', content: 'z'.repeat(200_000) },
    { name: 'dir', type: 'directory' as const },
    { name: 'dir/link', type: 'symlink' as const, linkname: '../one' },
    { name: `${longDirectory}/in-prefix.txt`, content: 'ustar prefix' },
    { name: `${'n'.repeat(300)}.txt`, content: 'a pax path' },
    { name: 'long-link', type: 'symlink' as const, linkname: 't'.repeat(200) },
    { name: 'üñí/çødé', content: 'utf-8 names' },
    { name: 'hard', type: 'link' as const, linkname: 'one' },
    { name: 'fifo', type: 'fifo' as const },
  ];

  it.each([1, 7, 511, 512, 513, 4096, 65_536, 10_000_000])('fed in chunks of %i bytes', async (size) => {
    const archive = await bytesOf(tarOf(entries));
    expect(readInChunks(archive, size)).toEqual(await readTar(Readable.from([archive])));
  });

  it('reads git archive (a pax global header with the commit id) and GNU tar (long names by L/K records) alike', async () => {
    const repo = join(work, 'repo');
    const deep = join(repo, 'a'.repeat(60), 'b'.repeat(60));
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(deep, `${'c'.repeat(90)}.txt`), 'deep\n');
    writeFileSync(join(repo, 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
    symlinkSync(`${'l'.repeat(120)}/target`, join(repo, 'far-link'));
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@x', GIT_CONFIG_NOSYSTEM: '1', HOME: work }, maxBuffer: 1e8 });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'tree');
    for (const archive of [git('archive', '--format=tar', 'HEAD'), execFileSync('tar', ['--format=gnu', '-C', repo, '-cf', '-', '--exclude=.git', '.'], { maxBuffer: 1e8 })]) {
      const expected = await readTar(Readable.from([archive]));
      expect(expected.some((e) => e.name.length > 100)).toBe(true);
      expect(readInChunks(archive, 100)).toEqual(expected);
      expect(readInChunks(archive, archive.length)).toEqual(expected);
    }
  });
});

describe('TarReader fails as tar-stream fails', () => {
  it('on a header whose checksum does not hold', async () => {
    const archive = await bytesOf(tarOf([{ name: 'a', content: 'a' }]));
    archive[10] ^= 1;
    expect(() => readInChunks(archive, 512)).toThrow('Invalid tar header');
  });

  it('on bytes that are not a tar, and a header of no known format', async () => {
    expect(() => readInChunks(Buffer.alloc(1024, 7), 512)).toThrow('Invalid tar header');
    const archive = await bytesOf(tarOf([{ name: 'a', content: 'a' }]));
    rewriteHeader(archive, 0, (block) => block.write('xxxxxx', 257, 'latin1')); // the magic
    expect(() => readInChunks(archive, 512)).toThrow('unknown format');
  });

  it('on an archive that ends inside a header, a content or its padding', async () => {
    const archive = await bytesOf(tarOf([{ name: 'a', content: 'a'.repeat(2000) }]));
    for (const end of [300, 512 + 1000, 512 + 2000 + 10]) {
      expect(() => readInChunks(archive.subarray(0, end), 256)).toThrow('Unexpected end of data');
    }
  });

  it('on a long-name record over 1 MiB', async () => {
    const archive = await bytesOf(tarOf([{ name: 'n'.repeat(2 * 1024 * 1024), content: 'a' }]));
    expect(() => readInChunks(archive, 65_536)).toThrow('Header exceeds max size');
  });
});

describe('TarReader numbers', () => {
  it('reads a size in base-256, as GNU tar writes sizes of 8 GiB and more', async () => {
    const archive = await bytesOf(tarOf([{ name: 'a', content: 'abc' }]));
    rewriteHeader(archive, 0, (block) => {
      block.fill(0, 124, 136);
      block[124] = 0x80;
      block[135] = 3; // 3 bytes, in base-256
    });
    expect(readInChunks(archive, 512)).toMatchObject([{ name: 'a', size: 3, content: 'abc' }]);
  });

  it('takes the size from a pax record over the header\'s, as pax archives give sizes of 8 GiB and more', async () => {
    const archive = await bytesOf(tarOf([{ name: 'a', content: 'abc', pax: { size: '3' } }]));
    const header = 512 + 512; // after the pax header and its one block of records
    rewriteHeader(archive, header, (block) => block.write('00000000000\0', 124, 'latin1'));
    const expected = await readTar(Readable.from([archive]));
    expect(expected).toMatchObject([{ name: 'a', size: 3, content: 'abc' }]);
    expect(readInChunks(archive, 100)).toEqual(expected);
  });
});
