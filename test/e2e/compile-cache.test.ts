import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, embeddedDatabasePids, startServer, tempDir } from '../support/server-process.js';

/**
 * The built server keeps one build's compile cache in its data directory: once its own is written
 * (5 s after it listens), the caches of other builds, and the single directory an older server
 * wrote, are removed, so upgrades do not pile up about 6 MB each.
 */
const data = tempDir('e2e-compile-cache');
const cacheRoot = join(data.dir, 'compile-cache');
let server: ServerProcess;

beforeAll(async () => {
  for (const stale of ['build-old-1', 'v24.0.0-x64-00000000-0']) {
    mkdirSync(join(cacheRoot, stale), { recursive: true });
    writeFileSync(join(cacheRoot, stale, 'entry'), 'an older build\'s compiled code');
  }
  server = await startServer({ SERVICE_CONFIG: join(data.dir, 'absent', 'service.yml'), SERVICE_DATA_DIR: data.dir });
});

afterAll(async () => {
  await server?.stop();
  for (const pid of await embeddedDatabasePids(data.dir)) process.kill(pid, 'SIGKILL');
  data.remove();
});

describe('the compile cache in the data directory', () => {
  it('is written into a directory of this build, and the other builds\' caches are removed', async () => {
    expect(server.firstHealth?.ms).toBeGreaterThan(0);
    const builds = () => (existsSync(cacheRoot) ? readdirSync(cacheRoot) : []);
    await expect.poll(builds, { timeout: 30_000, interval: 250 }).toEqual([expect.stringMatching(/^build-[0-9a-f]{12}$/)]);
    const [build] = builds();
    // Node's own directory per version below it, holding the compiled code.
    const [versioned] = readdirSync(join(cacheRoot, build!));
    expect(versioned).toMatch(new RegExp(`^${process.version.replace(/\./g, '\\.')}-`));
    expect(readdirSync(join(cacheRoot, build!, versioned!)).length).toBeGreaterThan(0);
  });
});
