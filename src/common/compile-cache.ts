import { statSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * Where a build's compile cache goes: `<dataDir>/compile-cache/<build>`, one directory per build
 * of the bundle, named by the entry file's size and modification time. The bundle's chunks are
 * named by their content, so every build adds new entries, and in a single directory old builds'
 * entries would pile up (about 6 MB each) for as long as the data directory lives.
 */
export function compileCacheDirectory(dataDir: string, entry: URL): string {
  const stats = statSync(entry, { throwIfNoEntry: false });
  const build = stats ? `build-${stats.size.toString(36)}-${Math.trunc(stats.mtimeMs).toString(36)}` : 'build-unknown';
  return join(dataDir, 'compile-cache', build);
}

/**
 * Removes whatever else is beside `current` (a directory `compileCacheDirectory` named): the
 * caches of other builds. A replica of another build sharing the data directory loses its cache,
 * which costs it a slower next start, nothing else. Answers how many entries went.
 */
export async function pruneOtherBuilds(current: string): Promise<number> {
  const root = dirname(current);
  const others = (await readdir(root).catch(() => [] as string[])).filter((name) => join(root, name) !== current);
  for (const name of others) await rm(join(root, name), { recursive: true, force: true }).catch(() => undefined);
  return others.length;
}
