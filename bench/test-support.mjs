// Benchmarks run on plain Node, which cannot load TypeScript: the test support they share with the
// tests (the sandbox test image, the Kubernetes stand-in) is compiled into .bench-build/ by
// tsconfig.bench.json, again whenever a source is newer than its build.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, '.bench-build');

const newest = (dir) => Math.max(...readdirSync(dir, { recursive: true }).map((f) => statSync(join(dir, String(f))).mtimeMs));

/** Imports a test-support module (`test/…/x.ts`, given as `test/…/x.js`) from its build. */
export async function importTestSupport(path) {
  const built = join(OUT, path);
  if (!existsSync(built) || statSync(built).mtimeMs < Math.max(newest(join(ROOT, 'test/support')), newest(join(ROOT, 'test/stand-ins')))) {
    console.log('building the test support for benchmarks …');
    execFileSync(join(ROOT, 'node_modules/.bin/tsc'), ['-p', join(ROOT, 'tsconfig.bench.json')], { cwd: ROOT, stdio: 'inherit' });
  }
  return import(built);
}
