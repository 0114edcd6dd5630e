import { readdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * Removes whatever else is beside `current`: the caches of other builds. `current` is the
 * directory main.ts turned the compile cache on in, `<dataDir>/compile-cache/build-<BUILD_ID>`,
 * one per build of the bundle. The bundle's chunks are named by their content, so in a single
 * directory every build's entries would pile up (about 6 MB each) for as long as the data
 * directory lives. A replica of another build sharing the data directory loses its cache, which
 * costs it a slower next start, nothing else. Answers how many entries went.
 */
export async function pruneOtherBuilds(current: string): Promise<number> {
  const root = dirname(current);
  const others = (await readdir(root).catch(() => [] as string[])).filter((name) => join(root, name) !== current);
  for (const name of others) await rm(join(root, name), { recursive: true, force: true }).catch(() => undefined);
  return others.length;
}
