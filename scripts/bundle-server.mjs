// Bundles the server into dist/start-server.js (run by `npm run build`, after tsc): its own modules
// and the packages they import, but for the few listed in EXTERNAL. dist/main.js, the entry `npm
// start` runs, stays tsc's: it turns on Node's compile cache, then imports the bundle (src/main.ts).
//
// Why: Node resolves, reads and compiles each module of a start one at a time: the server's ~680
// and its packages' ~2,600. One file and its chunks instead boot the server in about 0.6 of the
// time (`npm run bench:boot`, docs/operations.md#benchboot) at the same idle memory. What
// `import()` loads later (the chat platforms, the model providers, the Kubernetes client, the
// OpenAPI document) goes into chunks beside it (dist/bundle-*.js) and still loads only when used.
// The rest of dist/ stays as tsc wrote it: the CLI, the embedded database's child process, and the
// modules the tests and benches import (which load their packages from node_modules).
//
// A package is either bundled or loaded from node_modules, never both: two copies of Nest or of
// class-transformer would each keep their own metadata. So what stays external is a whole,
// self-contained integration loaded on use whose dependencies the bundle does not share in a way
// that matters, or a leaf. dist/bundle-packages.json lists the packages in each chunk
// (test/e2e/boot-loads.test.ts reads it to see what a boot loaded).
//
// Idempotent: dist/start-server.js is bundled only while it is tsc's output (it imports ./server.js).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';
import { packageOf } from './package-of.mjs';

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const ENTRY = `${DIST}start-server.js`;
const MANIFEST = `${DIST}bundle-packages.json`;
const BUILD_ID = `${DIST}build-id.js`;
/** What an earlier bundle left (tsc writes no file named so; `main-*` from builds before 2026-11-29's). */
const CHUNK = /^(bundle|main)-.*\.js$/;

/** Loaded from node_modules, with the reason each cannot or need not be bundled. */
const EXTERNAL = [
  'pg', // TypeORM loads its driver with a computed require; the server's own imports share that one copy
  'pg-native', // pg's optional native binding
  'msgpackr-extract', // BullMQ's optional native decoder (a .node addon)
  'dockerode', // the container engine (on use): reads gRPC .proto files beside its modules, ssh2's native addon
  '@opentelemetry/sdk-node', // traces (on use): its exporters read .proto files beside their modules
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/resources',
  // One copy with the SDK's: a tracer taken before the SDK starts delegates only through the
  // provider of the copy that registered it (a second copy's spans would all be no-ops).
  '@opentelemetry/api',
  'swagger-ui-dist', // /api/docs serves its files from its folder
  '@electric-sql/pglite', // the embedded database's child process only
];
const builtins = new Set(builtinModules);
const isExternal = (id) =>
  id.startsWith('node:') || builtins.has(id.split('/')[0]) || EXTERNAL.some((name) => id === name || id.startsWith(`${name}/`));

if (!existsSync(ENTRY)) throw new Error(`${ENTRY} is missing: run tsc -p tsconfig.build.json first`);
if (!/from '\.\/server\.js'/.test(readFileSync(ENTRY, 'utf8'))) {
  console.log('dist/start-server.js is already bundled');
  process.exit(0);
}
for (const name of readdirSync(DIST)) if (CHUNK.test(name)) rmSync(`${DIST}${name}`);
const { output } = await build({
  input: ENTRY,
  platform: 'node',
  external: isExternal,
  // Optional peers Nest and Fastify try to load and we do not install (@nestjs/microservices,
  // @nestjs/platform-express, @fastify/view, …) stay imports that fail only if ever reached.
  onLog: (level, log, handler) => {
    if (log.code === 'UNRESOLVED_IMPORT') return;
    handler(level, log);
  },
  logLevel: 'warn',
  output: {
    dir: DIST,
    format: 'esm',
    entryFileNames: 'start-server.js',
    chunkFileNames: 'bundle-[name]-[hash].js',
    // Classes keep their names: TypeORM names tables and Nest names providers after them.
    keepNames: true,
  },
});

// Each chunk's packages, for the boot-loads test.
const manifest = {};
for (const chunk of output) {
  if (chunk.type !== 'chunk') continue;
  manifest[chunk.fileName] = [...new Set(chunk.moduleIds.map(packageOf).filter(Boolean))].sort();
}
writeFileSync(MANIFEST, `${JSON.stringify(manifest, null, 1)}\n`);

// The build's name for its compile cache (src/build-id.ts): the entry names every chunk it
// imports by their content, so its own content tells builds apart.
const entry = output.find((chunk) => chunk.type === 'chunk' && chunk.fileName === 'start-server.js');
const buildId = createHash('sha256').update(entry.code).digest('hex').slice(0, 12);
writeFileSync(BUILD_ID, `// Written by scripts/bundle-server.mjs.\nexport const BUILD_ID = '${buildId}';\n`);
