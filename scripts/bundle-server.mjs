// Bundles the server's own modules into dist/main.js (run by `npm run build`, after tsc).
//
// Why: Node's ESM loader resolves, reads and links each of the server's ~680 modules one by one
// at every start; one file instead of them boots the server about 0.5 s sooner on the bench
// machine (`npm run bench:boot`), at the same idle memory. Packages stay external, loaded from
// node_modules exactly as before (one copy of each, the lazily loaded ones still lazy); what
// `import()` loads later goes into chunks beside it (dist/main-*.js: a module that finds files from
// its own location, such as paths.ts, may land in one, so they stay in dist/). The rest of dist/ stays as tsc wrote it: the CLI,
// the embedded database's child process, the benches and tests import modules from there.
//
// Idempotent: dist/main.js is bundled only while it is tsc's output (it imports ./server.js).
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const ENTRY = `${DIST}main.js`;
/** What an earlier bundle left (tsc writes no file named so). */
const CHUNK = /^main-.*\.js$/;

if (!existsSync(ENTRY)) throw new Error(`${ENTRY} is missing: run tsc -p tsconfig.build.json first`);
if (!/from '\.\/server\.js'/.test(readFileSync(ENTRY, 'utf8'))) {
  console.log('dist/main.js is already bundled');
  process.exit(0);
}
for (const name of readdirSync(DIST)) if (CHUNK.test(name)) rmSync(`${DIST}${name}`);
await build({
  input: ENTRY,
  platform: 'node',
  // Bare specifiers (packages, node: builtins) are left to Node; only the server's own files are bundled.
  external: (id) => !id.startsWith('.') && !id.startsWith('/'),
  logLevel: 'warn',
  output: {
    dir: DIST,
    format: 'esm',
    entryFileNames: 'main.js',
    chunkFileNames: 'main-[name]-[hash].js',
    // Classes keep their names: TypeORM names tables and Nest names providers after them.
    keepNames: true,
  },
});
