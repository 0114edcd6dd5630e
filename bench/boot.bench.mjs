// npm run bench:boot — boot-to-listening time and idle resident memory of the BUILT server
// (dist/main.js, built first when missing), started exactly as `npm start` does
// (`node --max-semi-space-size=4 dist/main.js`, cwd = the package root), BENCH_RUNS times (5) each:
//
//   (a) embedded defaults: no bootstrap file, no store, no DATABASE_URL; a fresh temporary
//       SERVICE_DATA_DIR migrated first with `node dist/cli/main.js migrate`. The server's RSS and,
//       separately, the RSS of the embedded database child process it forks.
//   (e) the embedded defaults of `npm run serve`: (a) with KVSTORE_URL=embedded, the store a
//       redis-server child on a unix socket (skipped without redis-server on PATH); the server's
//       RSS and, separately, the store child's.
//   (b) DATABASE_URL to a fresh migrated database on the machine's PostgreSQL
//       (DATABASE_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/postgres); dropped afterwards.
//   (d) DATABASE_URL and KVSTORE_URL to a listener that accepts and never answers (boot only).
//   (c) baseline, measured the same way in the same run: a bare Fastify process (inline script,
//       same node flags) answering /health; and the same with a compile cache of its own, beside it.
//
// Boot = spawn → first 200 from GET /health (polled every 10 ms). Idle RSS = VmRSS from
// /proc/<pid>/status after BENCH_IDLE_MS (4000) ms of idling after that first 200. The scenarios
// are interleaved run by run, so machine noise spreads over all of them. Targets (the server,
// issue 31): boot ≤ 4× the bare Fastify process of the same run (ratio of medians, printed), idle
// RSS ≤ 150 MB; the embedded database child's idle RSS is printed beside them. Prints figures only; exits 0 (no assertions). Every process and
// database it starts is removed, also when interrupted.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ADMIN_URL, admin, cleanEnv, freePort } from './bench-support.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NODE = process.execPath;
const NODE_FLAGS = ['--max-semi-space-size=4']; // as package.json "start"
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 4000);
const BOOT_TIMEOUT_MS = 30_000;
const TARGET_BOOT_RATIO = 4;
const TARGET_RSS_MB = 150;
const EMBEDDED_CHILD_SCRIPT = 'embedded-postgres.process.js';
const STORE_CHILD = 'redis-server';

if (!existsSync(join(ROOT, 'dist/main.js'))) {
  console.log('building dist/ …');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
}

const id = randomBytes(4).toString('hex');
const work = mkdtempSync(join(tmpdir(), 'bench-boot-'));
const dbName = `bench_boot_${id}`;
const dbUrl = new URL(ADMIN_URL);
dbUrl.pathname = `/${dbName}`;
let databaseCreated = false;
/** Every process this bench started and has not yet seen gone: pid → ChildProcess or null (a grandchild). */
const live = new Map();

// ---- process helpers -----------------------------------------------------------------------

function alive(pid) {
  try {
    process.kill(pid, 0);
    // A zombie still answers kill(0); it no longer holds memory or ports.
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

function killNow(pid, signal = 'SIGKILL') {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

/** Synchronous last resort (exit, signals): SIGKILL whatever is still running. */
function killAll() {
  for (const pid of live.keys()) killNow(pid);
  live.clear();
}
process.on('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    killAll();
    void cleanup().finally(() => process.exit(130));
  });
}

function rssKb(pid) {
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]);
}

/** Direct children of a pid (every thread's `children` list), with their command lines. */
function childrenOf(pid) {
  const pids = new Set();
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/)) {
        if (child) pids.add(Number(child));
      }
    } catch {
      // thread ended meanwhile
    }
  }
  return [...pids].map((child) => {
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${child}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      // ended meanwhile
    }
    return { pid: child, cmdline };
  });
}



function run(args, env) {
  execFileSync(NODE, args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
}

async function stop(child, extraPids) {
  const pids = [child.pid, ...extraPids];
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    const exited = await Promise.race([new Promise((resolve) => child.once('exit', () => resolve(true))), sleep(10_000, false)]);
    if (!exited) child.kill('SIGKILL');
  }
  // The embedded database stops with its server; wait for it, then make sure.
  const until = Date.now() + 10_000;
  while (pids.some(alive) && Date.now() < until) await sleep(50);
  for (const pid of pids) {
    if (alive(pid)) killNow(pid);
    live.delete(pid);
  }
}

/** One measured start: spawn → first 200 from /health, idle, read VmRSS, stop. */
async function measure(kind, args, env) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/health`;
  const started = performance.now();
  const child = spawn(NODE, [...NODE_FLAGS, ...args], { cwd: ROOT, env: { ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'ignore', 'pipe'] });
  live.set(child.pid, child);
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const extra = [];
  try {
    let bootMs = null;
    while (bootMs === null) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${kind} exited (${child.exitCode ?? child.signalCode}): ${stderr.trim()}`);
      if (performance.now() - started > BOOT_TIMEOUT_MS) throw new Error(`${kind} did not answer ${url} within ${BOOT_TIMEOUT_MS} ms`);
      try {
        const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
        await response.arrayBuffer();
        if (response.status === 200) bootMs = performance.now() - started;
      } catch {
        // not listening yet
      }
      if (bootMs === null) await sleep(10);
    }
    await sleep(IDLE_MS);
    const children = childrenOf(child.pid);
    for (const c of children) {
      extra.push(c.pid);
      live.set(c.pid, null);
    }
    const db = children.find((c) => c.cmdline.includes(EMBEDDED_CHILD_SCRIPT));
    const store = children.find((c) => c.cmdline.includes(STORE_CHILD));
    return {
      bootMs,
      rssKb: rssKb(child.pid),
      childRssKb: db ? rssKb(db.pid) : null,
      storeRssKb: store ? rssKb(store.pid) : null,
      children: children.length,
    };
  } finally {
    // On a failed start too: whatever the process forked goes with it.
    if (alive(child.pid)) for (const c of childrenOf(child.pid)) if (!extra.includes(c.pid)) extra.push(c.pid);
    await stop(child, extra);
  }
}

// ---- scenarios -------------------------------------------------------------------------------


function fastifyEntry() {
  try {
    return import.meta.resolve('fastify');
  } catch {
    // Not resolvable from here: it is a dependency of @nestjs/platform-fastify.
    const require = createRequire(join(ROOT, 'package.json'));
    const nested = createRequire(require.resolve('@nestjs/platform-fastify/package.json'));
    return pathToFileURL(nested.resolve('fastify')).href;
  }
}

const bareFastify = join(work, 'bare-fastify.mjs');
writeFileSync(bareFastify, `
import Fastify from ${JSON.stringify(fastifyEntry())};
const app = Fastify();
app.get('/health', async () => ({ status: 'ok' }));
await app.listen({ port: Number(process.env.PORT), host: process.env.HOST });
const close = () => app.close().then(() => process.exit(0));
process.on('SIGTERM', close);
process.on('SIGINT', close);
`);

const scenarios = [];

// (a) embedded defaults
const dataDir = join(work, 'data');
const embeddedEnv = cleanEnv({ SERVICE_DATA_DIR: dataDir, SERVICE_CONFIG: join(work, 'no-such-service.yml') });
run(['dist/cli/main.js', 'migrate'], embeddedEnv);
scenarios.push({ key: 'embedded', args: ['dist/main.js'], env: embeddedEnv, results: [] });
// (a') the same with the server's compile cache turned off (Node's NODE_DISABLE_COMPILE_CACHE=1):
// what every boot cost before the cache, and about what a first boot after an upgrade costs. The
// other scenarios keep their data directory from run to run, so their first run fills the cache
// (<SERVICE_DATA_DIR>/compile-cache, src/main.ts) and the later ones read it, as restarts do.
scenarios.push({ key: 'uncached', args: ['dist/main.js'], env: { ...embeddedEnv, NODE_DISABLE_COMPILE_CACHE: '1' }, results: [] });

// (e) `npm run serve`'s defaults: the embedded database and the embedded store
let storeSkipped = null;
try {
  execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
  const serveDir = join(work, 'serve-data');
  const serveEnv = cleanEnv({ SERVICE_DATA_DIR: serveDir, SERVICE_CONFIG: join(work, 'no-such-service.yml'), KVSTORE_URL: 'embedded' });
  run(['dist/cli/main.js', 'migrate'], serveEnv);
  scenarios.push({ key: 'serve', args: ['dist/main.js'], env: serveEnv, results: [] });
} catch (error) {
  storeSkipped = `skipped: no redis-server on PATH (${error.message})`;
}

// (b) the machine's PostgreSQL
let externalSkipped = null;
try {
  await admin(`CREATE DATABASE ${dbName}`);
  databaseCreated = true;
  const externalEnv = cleanEnv({ DATABASE_URL: dbUrl.href, SERVICE_DATA_DIR: join(work, 'unused'), SERVICE_CONFIG: join(work, 'no-such-service.yml') });
  run(['dist/cli/main.js', 'migrate'], externalEnv);
  scenarios.push({ key: 'external', args: ['dist/main.js'], env: externalEnv, results: [] });
} catch (error) {
  externalSkipped = `skipped: PostgreSQL at ${new URL(ADMIN_URL).host} unavailable (${error.message})`;
}

// (d) dependencies that never answer: DATABASE_URL and KVSTORE_URL point at a listener that
// accepts connections and stays silent, so every client waits for its own connect timeout.
const silent = createServer((socket) => socket.on('error', () => {}));
await new Promise((done) => silent.listen(0, '127.0.0.1', done));
const silentPort = silent.address().port;
scenarios.push({
  key: 'silent',
  args: ['dist/main.js'],
  env: cleanEnv({
    DATABASE_URL: `postgres://svc@127.0.0.1:${silentPort}/nothing`, KVSTORE_URL: `redis://127.0.0.1:${silentPort}/0`,
    SERVICE_DATA_DIR: join(work, 'unused'), SERVICE_CONFIG: join(work, 'no-such-service.yml'),
  }),
  results: [],
});

// (c) baseline, and the stricter one: bare Fastify with a compile cache of its own (filled by its first run)
scenarios.push({ key: 'fastify', args: [bareFastify], env: cleanEnv({}), results: [] });
scenarios.push({ key: 'fastifyCached', args: [bareFastify], env: cleanEnv({ NODE_COMPILE_CACHE: join(work, 'fastify-compile-cache') }), results: [] });

async function cleanup() {
  killAll();
  silent.close();
  silent.unref();
  if (databaseCreated) {
    databaseCreated = false;
    await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch((error) => console.error(`could not drop ${dbName}: ${error.message}`));
  }
  rmSync(work, { recursive: true, force: true });
}

const failures = [];
try {
  console.log(`bench:boot — ${RUNS} runs each, ${IDLE_MS / 1000} s idle before reading VmRSS (node ${process.version}, ${NODE_FLAGS.join(' ')})`);
  for (let i = 0; i < RUNS; i++) {
    for (const s of scenarios) {
      try {
        const r = await measure(s.key, s.args, s.env);
        s.results.push(r);
        const child = (r.childRssKb === null ? '' : `, db child ${(r.childRssKb / 1024).toFixed(1)} MB`)
          + (r.storeRssKb === null ? '' : `, store child ${(r.storeRssKb / 1024).toFixed(1)} MB`);
        console.log(`  run ${i + 1} ${s.key.padEnd(8)} boot ${(r.bootMs / 1000).toFixed(3)} s, RSS ${(r.rssKb / 1024).toFixed(1)} MB${child}`);
      } catch (error) {
        failures.push(`${s.key} run ${i + 1}: ${error.message}`);
        console.log(`  run ${i + 1} ${s.key.padEnd(8)} failed: ${error.message}`);
      }
    }
  }
} finally {
  await cleanup();
}

// ---- report ----------------------------------------------------------------------------------

function stats(values) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, min: sorted[0], max: sorted[sorted.length - 1], n: sorted.length };
}

const byKey = Object.fromEntries(scenarios.map((s) => [s.key, s.results]));
const seconds = (list) => stats((list ?? []).map((r) => r.bootMs / 1000));
const mb = (list, field) => stats((list ?? []).map((r) => r[field]).filter((v) => v !== null).map((kb) => kb / 1024));

// The boot target is relative: TARGET_BOOT_RATIO × the bare Fastify median of this run.
const bare = seconds(byKey.fastify);
const bootLimit = bare ? bare.median * TARGET_BOOT_RATIO : null;
const bootTarget = bare ? `≤ ${TARGET_BOOT_RATIO}× bare = ${bootLimit.toFixed(3)} s` : `≤ ${TARGET_BOOT_RATIO}× bare`;
const rows = [
  ['boot → listening, server, embedded defaults', seconds(byKey.embedded), 's', bootTarget, bootLimit],
  ['boot → listening, server, embedded defaults, compile cache off', seconds(byKey.uncached), 's', bootTarget, bootLimit],
  ['boot → listening, server, embedded database and store (npm run serve)', seconds(byKey.serve), 's', bootTarget, bootLimit],
  ['boot → listening, server, DATABASE_URL', seconds(byKey.external), 's', bootTarget, bootLimit],
  ['boot → listening, server, silent database and store', seconds(byKey.silent), 's', bootTarget, bootLimit],
  ['boot → listening, bare Fastify (baseline)', seconds(byKey.fastify), 's', '', null],
  ['boot → listening, bare Fastify with a compile cache', seconds(byKey.fastifyCached), 's', '', null],
  ['idle RSS, server, embedded defaults', mb(byKey.embedded, 'rssKb'), 'MB', `≤ ${TARGET_RSS_MB} MB`, TARGET_RSS_MB],
  ['idle RSS, embedded database child', mb(byKey.embedded, 'childRssKb'), 'MB', '(own process)', null],
  ['idle RSS, server, embedded defaults, compile cache off', mb(byKey.uncached, 'rssKb'), 'MB', `≤ ${TARGET_RSS_MB} MB`, TARGET_RSS_MB],
  ['idle RSS, server, embedded database and store', mb(byKey.serve, 'rssKb'), 'MB', `≤ ${TARGET_RSS_MB} MB`, TARGET_RSS_MB],
  ['idle RSS, embedded store child (redis-server)', mb(byKey.serve, 'storeRssKb'), 'MB', '(own process)', null],
  ['idle RSS, server, DATABASE_URL', mb(byKey.external, 'rssKb'), 'MB', `≤ ${TARGET_RSS_MB} MB`, TARGET_RSS_MB],
  ['idle RSS, bare Fastify (baseline)', mb(byKey.fastify, 'rssKb'), 'MB', '', null],
];

const fmt = (v, unit) => (unit === 's' ? v.toFixed(3) : v.toFixed(1));
const header = ['', 'median', 'min', 'max', 'n', 'target', 'median meets target'];
const table = rows.map(([name, st, unit, target, limit]) => {
  if (!st) return [name, '—', '—', '—', '0', target, name.includes('DATABASE_URL') && externalSkipped ? externalSkipped : name.includes('store') && storeSkipped ? storeSkipped : 'no data'];
  return [name, `${fmt(st.median, unit)} ${unit}`, `${fmt(st.min, unit)} ${unit}`, `${fmt(st.max, unit)} ${unit}`, String(st.n), target,
    limit === null ? '' : st.median <= limit ? 'yes' : 'NO'];
});
const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i].length)));
const line = (cells) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
console.log('');
console.log(line(header));
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const row of table) console.log(line(row));
console.log('');
console.log(`MB = 2^20 bytes (VmRSS). Boot = spawn → first 200 from GET /health. The embedded database is the server's child (${EMBEDDED_CHILD_SCRIPT}); its memory is not part of the server's RSS.`);
const ratios = (base) => ['embedded', 'uncached', 'serve', 'external', 'silent']
  .map((key) => [key, seconds(byKey[key])]).filter(([, st]) => st).map(([key, st]) => `${key} ${(st.median / base.median).toFixed(1)}×`).join(', ');
if (bare) console.log(`boot ratio to bare Fastify (${bare.median.toFixed(3)} s, same run), medians: ${ratios(bare)} (target ≤ ${TARGET_BOOT_RATIO}×)`);
const bareCached = seconds(byKey.fastifyCached);
if (bareCached) console.log(`boot ratio to bare Fastify with a compile cache (${bareCached.median.toFixed(3)} s, same run), medians: ${ratios(bareCached)}`);
const bareRss = mb(byKey.fastify, 'rssKb');
const serverRss = mb(byKey.embedded, 'rssKb');
if (bareRss && serverRss) console.log(`idle RSS: server (embedded defaults) ${serverRss.median.toFixed(1)} MB = ${(serverRss.median / bareRss.median).toFixed(1)}× bare Fastify ${bareRss.median.toFixed(1)} MB; embedded database child ${mb(byKey.embedded, 'childRssKb')?.median.toFixed(1) ?? '—'} MB`);
if (externalSkipped) console.log(`DATABASE_URL row ${externalSkipped}`);
if (failures.length > 0) console.log(`failed runs (left out of the figures):\n  ${failures.join('\n  ')}`);
process.exit(0);
