import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MirrorLocks } from './mirror-lock.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('MirrorLocks', () => {
  let dir: string;
  let lock: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mirror-lock-'));
    lock = join(dir, 'repo.lock');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('runs the holders of one lock one after the other, in order, and removes the file after', async () => {
    const locks = new MirrorLocks({ waitMs: 5000, staleMs: 60_000 });
    const events: string[] = [];
    const work = (name: string) => locks.withLock(lock, async () => {
      events.push(`${name} in`);
      expect(existsSync(lock)).toBe(true);
      await sleep(30);
      events.push(`${name} out`);
    });
    await Promise.all([work('a'), work('b'), work('c')]);
    expect(events).toEqual(['a in', 'a out', 'b in', 'b out', 'c in', 'c out']);
    expect(existsSync(lock)).toBe(false);
  });

  it('releases when the work throws', async () => {
    const locks = new MirrorLocks({ waitMs: 1000, staleMs: 60_000 });
    await expect(locks.withLock(lock, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(locks.withLock(lock, async () => 'next')).resolves.toBe('next');
  });

  it('waits for another process holding the lock file', async () => {
    // Another process takes the lock file the same way (O_EXCL) and holds it for 400 ms.
    const script = `const fs=require('fs');const fd=fs.openSync(${JSON.stringify(lock)},'wx');fs.writeSync(fd,JSON.stringify({token:'other',pid:process.pid,host:${JSON.stringify(hostname())}}));setTimeout(()=>fs.unlinkSync(${JSON.stringify(lock)}),400);`;
    const other = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
    const exited = new Promise((resolve) => other.once('exit', resolve));
    for (let i = 0; i < 100 && !existsSync(lock); i++) await sleep(10);
    const started = Date.now();
    await new MirrorLocks({ waitMs: 5000, staleMs: 60_000 }).withLock(lock, async () => undefined);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    await exited;
  });

  it('gives up waiting after waitMs, naming the holder', async () => {
    writeFileSync(lock, JSON.stringify({ token: 'live', pid: process.pid, host: hostname() }));
    await expect(new MirrorLocks({ waitMs: 200, staleMs: 60_000 }).withLock(lock, async () => undefined)).rejects.toThrow(`process ${process.pid}`);
  });

  it('breaks a lock whose holder on this host is gone', async () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.pid']).pid!;
    writeFileSync(lock, JSON.stringify({ token: 'dead', pid: dead, host: hostname() }));
    await expect(new MirrorLocks({ waitMs: 1000, staleMs: 60_000 }).withLock(lock, async () => 'ran')).resolves.toBe('ran');
  });

  it('breaks a lock of another host that was not refreshed for staleMs, and an unreadable one as old', async () => {
    writeFileSync(lock, JSON.stringify({ token: 'far', pid: 1, host: 'another-host' }));
    const old = new Date(Date.now() - 120_000);
    utimesSync(lock, old, old);
    await expect(new MirrorLocks({ waitMs: 1000, staleMs: 60_000 }).withLock(lock, async () => 'ran')).resolves.toBe('ran');
    writeFileSync(lock, '');
    utimesSync(lock, old, old);
    await expect(new MirrorLocks({ waitMs: 1000, staleMs: 60_000 }).withLock(lock, async () => 'ran')).resolves.toBe('ran');
  });

  it('keeps a fresh lock of another host', async () => {
    writeFileSync(lock, JSON.stringify({ token: 'far', pid: 1, host: 'another-host' }));
    await expect(new MirrorLocks({ waitMs: 200, staleMs: 60_000 }).withLock(lock, async () => undefined)).rejects.toThrow('another-host');
  });
});
