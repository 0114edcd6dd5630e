import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SyncFileWrites } from './sync-file-writes.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sync-file-writes-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('SyncFileWrites', () => {
  it('writes a file with its mode, replacing a link there without writing through it', () => {
    const outside = join(dir, 'outside.txt');
    writeFileSync(outside, 'untouched');
    symlinkSync(outside, join(dir, 'link'));
    const writes = new SyncFileWrites();
    writes.write(join(dir, 'link'), Buffer.from('#!/bin/sh\n'), 0o755);
    expect(lstatSync(join(dir, 'link')).isFile()).toBe(true);
    expect(statSync(join(dir, 'link')).mode & 0o777).toBe(0o755);
    expect(readFileSync(join(dir, 'link'), 'utf8')).toBe('#!/bin/sh\n');
    expect(readFileSync(outside, 'utf8')).toBe('untouched');
  });

  it('replaces a FIFO a command left at the path instead of waiting for a reader', () => {
    // An open for writing of a FIFO blocks until it has a reader: synchronously, that would stall the server.
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    new SyncFileWrites().write(join(dir, 'pipe'), Buffer.from('content'), 0o644);
    expect(lstatSync(join(dir, 'pipe')).isFile()).toBe(true);
    expect(readFileSync(join(dir, 'pipe'), 'utf8')).toBe('content');
  });

  it('refuses a directory in the way', () => {
    mkdirSync(join(dir, 'taken'));
    expect(() => new SyncFileWrites().write(join(dir, 'taken'), Buffer.from('x'), 0o644)).toThrow(/a directory is in the way/);
  });

  it('gives new and existing files their whole mode whatever the umask strips from a new file', () => {
    writeFileSync(join(dir, 'existing'), 'old', { mode: 0o600 });
    const previous = process.umask(0o077);
    try {
      const writes = new SyncFileWrites();
      // Twice per mode: the first new file is looked at, later ones rely on what it showed.
      for (const name of ['a', 'b']) writes.write(join(dir, name), Buffer.from(name), 0o644);
      for (const name of ['x', 'y']) writes.write(join(dir, name), Buffer.from(name), 0o755);
      writes.write(join(dir, 'existing'), Buffer.from('new'), 0o644);
    } finally {
      process.umask(previous);
    }
    for (const name of ['a', 'b', 'existing']) expect(statSync(join(dir, name)).mode & 0o777, name).toBe(0o644);
    for (const name of ['x', 'y']) expect(statSync(join(dir, name)).mode & 0o777, name).toBe(0o755);
    expect(readFileSync(join(dir, 'existing'), 'utf8')).toBe('new');
  });

  it('replaces an existing file whole, a longer one truncated', () => {
    writeFileSync(join(dir, 'file'), 'a much longer old content');
    new SyncFileWrites().write(join(dir, 'file'), Buffer.from('short'), 0o644);
    expect(readFileSync(join(dir, 'file'), 'utf8')).toBe('short');
  });

  it('turns itself off once a window of writes was slower than the threshold', () => {
    const writes = new SyncFileWrites({ slowFileMs: -1, windowFiles: 2 });
    writes.write(join(dir, 'a'), Buffer.from('a'), 0o644);
    expect(writes.enabled).toBe(true);
    writes.write(join(dir, 'b'), Buffer.from('b'), 0o644);
    expect(writes.enabled).toBe(false);
    const quick = new SyncFileWrites({ slowFileMs: 1_000, windowFiles: 1 });
    quick.write(join(dir, 'c'), Buffer.from('c'), 0o644);
    expect(quick.enabled).toBe(true);
  });
});
