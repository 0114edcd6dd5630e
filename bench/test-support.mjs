// Benchmarks run on plain Node, which cannot load TypeScript: the test support they share with the
// tests (the sandbox test image, the Kubernetes stand-in) is compiled into .bench-build/ by
// tsconfig.bench.json, again whenever a source is newer than its build.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, '.bench-build');

const newest = (dir) => Math.max(...readdirSync(dir, { recursive: true }).map((f) => statSync(join(dir, String(f))).mtimeMs));

/** Imports a test-support module (`test/…/x.ts`, given as `test/…/x.js`) from its build. */
export async function importTestSupport(path) {
  const built = join(OUT, path);
  // The e2e bench's support (the publish server) compiles src/ along with it: a change there rebuilds too.
  const sources = ['src', 'test/support', 'test/stand-ins', 'test/workspaces/support', 'test/webhooks/support', 'test/tracing/support'];
  if (!existsSync(built) || statSync(built).mtimeMs < Math.max(...sources.map((dir) => newest(join(ROOT, dir))))) {
    console.log('building the test support for benchmarks …');
    execFileSync(join(ROOT, 'node_modules/.bin/tsc'), ['-p', join(ROOT, 'tsconfig.bench.json')], { cwd: ROOT, stdio: 'inherit' });
  }
  // The compiled src/ finds its package's files from its own root (src/paths.ts): point that root at the real ones.
  for (const entry of ['package.json', 'migrations', 'prompts', 'skills', 'config', 'dist']) {
    if (existsSync(join(ROOT, entry)) && !existsSync(join(OUT, entry))) symlinkSync(join(ROOT, entry), join(OUT, entry));
  }
  return import(built);
}
