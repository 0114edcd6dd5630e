import { randomUUID } from 'node:crypto';
import { link, open, readFile, rename, stat, unlink, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';

/** Poll interval while another process holds the lock file. */
const POLL_MS = 50;

export interface MirrorLockOptions {
  /** How long to wait for the lock before giving up. */
  waitMs: number;
  /**
   * A lock file not refreshed for this long is stale even when its holder cannot be checked (it
   * runs on another host sharing the data directory). Holders refresh it at a third of this.
   */
  staleMs: number;
}

interface LockRecord {
  token: string;
  pid: number;
  host: string;
}

/**
 * Mutual exclusion for one mirror: an async mutex for this process (callers queue in order) and a
 * lock file created with O_EXCL for other processes sharing the data directory. A lock file is
 * stale when its holder was on this host and is gone, or when it was not refreshed for `staleMs`.
 * Breaking a stale lock renames it aside first and checks it was the one judged stale, so two
 * processes breaking it at once cannot both win.
 */
export class MirrorLocks {
  private readonly tails = new Map<string, Promise<void>>();

  constructor(private readonly options: MirrorLockOptions) {}

  /** Runs `work` holding the lock `<path>`; the lock is released however `work` ends. */
  async withLock<T>(path: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(path) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.tails.set(path, tail);
    await previous;
    try {
      const held = await this.acquireFile(path);
      try {
        return await work();
      } finally {
        await held.release();
      }
    } finally {
      release();
      if (this.tails.get(path) === tail) this.tails.delete(path);
    }
  }

  private async acquireFile(path: string): Promise<{ release(): Promise<void> }> {
    const record: LockRecord = { token: randomUUID(), pid: process.pid, host: hostname() };
    const deadline = Date.now() + this.options.waitMs;
    for (;;) {
      try {
        const handle = await open(path, 'wx', 0o600);
        await handle.writeFile(JSON.stringify(record));
        await handle.close();
        return this.held(path, record);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = await readLock(path);
      if (await this.isStale(path, holder)) await breakLock(path, holder?.token ?? null);
      else if (Date.now() > deadline) throw new Error(`the lock ${path} is held by ${holder ? `process ${holder.pid} on ${holder.host}` : 'another process'}`);
      else await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  private held(path: string, record: LockRecord): { release(): Promise<void> } {
    // Refreshing the mtime tells processes on other hosts the holder is alive.
    const refresh = setInterval(() => void utimes(path, new Date(), new Date()).catch(() => undefined), this.options.staleMs / 3);
    refresh.unref();
    return {
      release: async () => {
        clearInterval(refresh);
        const current = await readLock(path);
        if (current?.token === record.token) await unlink(path).catch(() => undefined);
      },
    };
  }

  /** `holder` is null for a lock file without a readable record (its creator died between creating and writing it). */
  private async isStale(path: string, holder: LockRecord | null): Promise<boolean> {
    if (holder && holder.host === hostname() && !processAlive(holder.pid)) return true;
    const stats = await stat(path).catch(() => null);
    return stats !== null && Date.now() - stats.mtimeMs > this.options.staleMs;
  }
}

async function readLock(path: string): Promise<LockRecord | null> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<LockRecord>;
    return typeof parsed.token === 'string' && typeof parsed.pid === 'number' && typeof parsed.host === 'string' ? (parsed as LockRecord) : null;
  } catch {
    // Missing, or half-written by a holder that is creating it right now: not stale, wait for it.
    return null;
  }
}

async function breakLock(path: string, staleToken: string | null): Promise<void> {
  const aside = `${path}.stale-${randomUUID()}`;
  try {
    await rename(path, aside);
  } catch {
    return; // someone else broke (or released) it first
  }
  const moved = await readLock(aside);
  // Renamed a fresh lock another process took after the stale one was broken: put it back.
  if ((moved?.token ?? null) !== staleToken) await link(aside, path).catch(() => undefined);
  await unlink(aside).catch(() => undefined);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
