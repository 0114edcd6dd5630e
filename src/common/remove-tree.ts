import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Long enough for a large tree on a slow disk; past it, `fs.rm` finishes the job. */
const RM_TIMEOUT_MS = 60_000;

/**
 * Removes a directory tree (nothing when it is already gone). `rm -rf` removes 10,000 files in
 * 70 ms where `fs.rm`, one thread-pool round trip per call, took 190–250 ms on the bench
 * machine; `fs.rm` then finishes whatever `rm` could not (no `rm` on PATH, a failure) and
 * reports the error if the tree still cannot go.
 */
export async function removeTree(path: string): Promise<void> {
  await run('rm', ['-rf', '--', path], { timeout: RM_TIMEOUT_MS }).catch(() => undefined);
  await rm(path, { recursive: true, force: true });
}

/** What `removeTreeBehind` renames a tree to, beside where it was, before removing it. */
const REMOVING_PREFIX = '.pipeline-service-removing-';

/** Removals still going on behind their callers. */
const behind = new Set<Promise<void>>();

/**
 * Takes a directory tree out of its place at once, by a rename beside it
 * (`.pipeline-service-removing-<uuid>`), and removes it behind the caller: whoever waits for the
 * tree to be gone (a run's end, and the ticket's labels after it) does not wait for the disk to be
 * freed. When the rename fails the tree is removed in place, as `removeTree` does. A removal cut
 * short by the process's end leaves its renamed tree behind.
 */
export async function removeTreeBehind(path: string): Promise<void> {
  const aside = join(dirname(path), `${REMOVING_PREFIX}${randomUUID()}`);
  try {
    await rename(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    await removeTree(path);
    return;
  }
  // Nobody waits for it, so nobody could be told it failed: the tree is out of every path in use.
  const removal = removeTree(aside).catch(() => undefined).finally(() => behind.delete(removal));
  behind.add(removal);
}

/** Resolves once every removal started by `removeTreeBehind` so far has ended. */
export async function removalsBehind(): Promise<void> {
  await Promise.all([...behind]);
}

/**
 * Removes the trees in `dir` that `removeTreeBehind` renamed aside and an earlier process's end
 * cut short (a crash, a stop): a renamed tree is out of every path in use, so it is always safe to
 * remove, even while another process on this host is removing it too. Answers how many there were.
 */
export async function sweepRemovalsLeftBehind(dir: string): Promise<number> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const left = names.filter((name) => name.startsWith(REMOVING_PREFIX));
  for (const name of left) await removeTree(join(dir, name)).catch(() => undefined);
  return left.length;
}
