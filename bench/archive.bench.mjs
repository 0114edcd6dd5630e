// npm run bench:archive — throughput and memory of the whole-database archive on the BUILT server
// (dist/ is built when missing; a stale dist/ is measured as it is), beside PostgreSQL's own COPY in
// the same run.
//
// A source database (fresh, migrated with `node dist/cli/main.js migrate`) is seeded with BENCH_RUNS
// runs (1,000), BENCH_EVENTS run events (100,000, ~90 characters of text each) and BENCH_ARTIFACTS
// artifacts of 1 MiB of random bytes (20). Then:
//
//   export    GET /api/archive from server A (`node --max-semi-space-size=4 dist/main.js`, as
//             `npm start`, DATABASE_URL on the source), streamed to a file over real HTTP
//   import    POST /api/archive of that file to server B on a second fresh, migrated database,
//             streamed from the file; the row counts of B are then checked against the source
//   baseline  the same tables through `psql -c "COPY t TO STDOUT"` into gzip (same level as the
//             archive), and back with `COPY t FROM STDIN` into a third migrated database: the floor
//             of moving these rows at all
//
// Memory: each server's peak resident set (VmHWM of /proc/<pid>/status) once it is ready and after
// the operation. With the default heap V8 lets the heap grow with the garbage a long operation makes
// before it collects, so that figure grows with the data; BENCH_MAX_OLD_SPACE_MB=80 (added to the
// servers' flags) shows what the archive itself holds: the operation completes, and the peak stays
// flat from 100,000 to BENCH_EVENTS=1000000 events. No authority is configured, so the routes need
// no token. Servers are stopped and databases dropped at the end, also on failure and on SIGINT/SIGTERM.
// Prints figures; exits 0 when they were taken, 1 when the bench itself failed.
import { execFileSync, spawn } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createGunzip, createGzip } from 'node:zlib';
import pg from 'pg';
import { ADMIN_URL, admin, cleanEnv, freePort } from './bench-support.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NODE = process.execPath;
const NODE_FLAGS = ['--max-semi-space-size=4', // as package.json "start"
  ...(process.env.BENCH_MAX_OLD_SPACE_MB ? [`--max-old-space-size=${Number(process.env.BENCH_MAX_OLD_SPACE_MB)}`] : [])];
const RUNS = Number(process.env.BENCH_RUNS ?? 1000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);
const ARTIFACTS = Number(process.env.BENCH_ARTIFACTS ?? 20);
const GZIP_LEVEL = 1; // the archive's (src/admin/archive/archive-export.service.ts)
const BOOT_TIMEOUT_MS = 60_000;
const REVISION_TABLES = ['access_revision', 'config_revision'];

if (!existsSync(join(ROOT, 'dist/main.js'))) {
  console.log('building dist/ …');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
}

const id = Math.random().toString(16).slice(2, 10);
const work = mkdtempSync(join(tmpdir(), 'bench-archive-'));
const databases = [];
const servers = [];
let interrupted = false;

const urlOf = (name) => {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.href;
};
const exited = (child) => child.exitCode !== null || child.signalCode !== null;
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const rate = (bytes, ms) => `${(bytes / 1024 / 1024 / (ms / 1000)).toFixed(1)} MiB/s`;

let cleaning = null;
function cleanup() {
  cleaning ??= (async () => {
    for (const child of servers) if (!exited(child)) child.kill('SIGKILL');
    for (const name of databases) await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch((e) => console.error(`could not drop ${name}: ${e.message}`));
    rmSync(work, { recursive: true, force: true });
  })();
  return cleaning;
}
process.on('exit', () => servers.forEach((child) => exited(child) || child.kill('SIGKILL')));
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    interrupted = true;
    console.error(`\n${signal}: stopping the servers and dropping the databases …`);
    void cleanup().finally(() => process.exit(130));
  });
}

/** A fresh database, migrated by the release's own command. */
async function migratedDatabase(label) {
  const name = `bench_archive_${label}_${id}`;
  await admin(`CREATE DATABASE ${name}`);
  databases.push(name);
  const env = cleanEnv({ DATABASE_URL: urlOf(name), SERVICE_DATA_DIR: work, SERVICE_CONFIG: join(work, 'no-such-service.yml'), LOG_LEVEL: 'warn' });
  execFileSync(NODE, ['dist/cli/main.js', 'migrate'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
  return { name, url: urlOf(name), env };
}

async function seed(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`SET synchronous_commit = off;
      INSERT INTO runs (id, platform, project, ticket, pipeline, state, created_at, started_at, finished_at, event_seq, result)
        SELECT gen_random_uuid(), 'platform-a', 'shop', 'T-' || i, 'code', 'succeeded', now() - i * interval '1 min', now() - i * interval '1 min', now(),
               ${Math.ceil(EVENTS / RUNS)}, jsonb_build_object('ok', true, 'i', i)
        FROM generate_series(1, ${RUNS}) i;
      INSERT INTO run_events (run_id, seq, at, kind, sandbox, text)
        SELECT r.id, g, r.created_at + g * interval '150 ms', 'stdout', 'web', 'PASS src/runs/run-consumer.service.spec.ts (4.215 s) ✓ step ' || g || ' of run ' || r.ticket
        FROM (SELECT id, created_at, ticket, row_number() OVER (ORDER BY created_at) AS n FROM runs) r, generate_series(1, ${Math.ceil(EVENTS / RUNS)}) g
        WHERE (r.n - 1) * ${Math.ceil(EVENTS / RUNS)} + g <= ${EVENTS};
      INSERT INTO run_artifacts (run_id, name, media_type, content, size_bytes)
        SELECT r.id, 'blob.bin', 'application/octet-stream', (SELECT decode(string_agg(md5(random()::text || k || r.id), ''), 'hex') FROM generate_series(1, 65536) k), 1048576
        FROM (SELECT id FROM runs ORDER BY created_at LIMIT ${ARTIFACTS}) r`);
    await client.query('VACUUM ANALYZE');
    return await counts(client);
  } finally {
    await client.end();
  }
}

async function counts(client) {
  const { rows } = await client.query(`SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'schema_migrations' ORDER BY 1`);
  const out = {};
  for (const { name } of rows) out[name] = Number((await client.query(`SELECT count(*) AS n FROM ${pg.escapeIdentifier(name)}`)).rows[0].n);
  return out;
}

async function countsOf(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await counts(client);
  } finally {
    await client.end();
  }
}

/** `VmHWM` (peak) and `VmRSS` (now) of a process, in bytes. */
function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { peak: kib('VmHWM'), now: kib('VmRSS') };
}

async function startServer(env) {
  const port = await freePort();
  const child = spawn(NODE, [...NODE_FLAGS, 'dist/main.js'], { cwd: ROOT, env: { ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  servers.push(child);
  let output = '';
  const keep = (chunk) => {
    output = (output + chunk).slice(-8000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const started = performance.now();
  for (const path of ['/health', '/api/runs?limit=1']) {
    for (;;) {
      if (exited(child)) throw new Error(`dist/main.js exited (${child.exitCode ?? child.signalCode}):\n${output.trim()}`);
      if (performance.now() - started > BOOT_TIMEOUT_MS) throw new Error(`dist/main.js: no 200 from ${path} within ${BOOT_TIMEOUT_MS} ms:\n${output.trim()}`);
      const status = await new Promise((resolve) => http.get({ host: '127.0.0.1', port, path }, (res) => res.resume().once('end', () => resolve(res.statusCode))).once('error', () => resolve(0)));
      if (status === 200) break;
      await sleep(50);
    }
  }
  return { child, port, log: () => output.trim() };
}

async function stopServer(server) {
  if (exited(server.child)) return;
  const gone = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await gone;
}

/** One request over a fresh connection; the body goes to `sink` (a stream) or is collected as text. */
function request(port, method, path, { body = null, sink = null, headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      if (sink && res.statusCode === 200) {
        pipeline(res, sink).then(() => resolve({ status: res.statusCode }), reject);
        return;
      }
      let text = '';
      res.setEncoding('utf8').on('data', (c) => (text += c)).once('end', () => resolve({ status: res.statusCode, text }));
    });
    req.once('error', reject);
    if (body) pipeline(body, req).catch(reject);
    else req.end();
  });
}

async function timed(fn) {
  const started = performance.now();
  const result = await fn();
  return { ms: performance.now() - started, result };
}

/** Uncompressed size of a gzip file. */
async function inflatedSize(file) {
  let bytes = 0;
  await pipeline(createReadStream(file), createGunzip(), async function* (source) {
    for await (const chunk of source) bytes += chunk.length;
  });
  return bytes;
}

/** `psql` with the database's URL running `commands`, its stdin and stdout as given. */
function psql(url, commands, { stdin = 'ignore', stdout = 'ignore' } = {}) {
  const sql = [commands].flat();
  const child = spawn('psql', [url, '-X', '-q', '-v', 'ON_ERROR_STOP=1', ...sql.flatMap((c) => ['-c', c])], { stdio: [stdin === 'ignore' ? 'ignore' : 'pipe', stdout === 'ignore' ? 'ignore' : 'pipe', 'inherit'] });
  const done = new Promise((resolve, reject) => child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`psql -c "${sql}" exited ${code}`)))));
  return { child, done };
}

let exitCode = 0;
try {
  const source = await migratedDatabase('source');
  const t0 = performance.now();
  const seeded = await seed(source.url);
  const tables = Object.keys(seeded).filter((t) => seeded[t] > 0);
  console.log(`bench:archive — ${source.name} seeded in ${seconds(performance.now() - t0)}: ${Object.entries(seeded).filter(([, n]) => n > 0).map(([t, n]) => `${t} ${n}`).join(', ')}`);

  // ---- the archive, through the servers ----
  const a = await startServer(source.env);
  const aReady = memoryOf(a.child.pid);
  const file = join(work, 'archive.ndjson.gz');
  const exported = await timed(() => request(a.port, 'GET', '/api/archive', { sink: createWriteStream(file) }));
  if (exported.result.status !== 200) throw new Error(`GET /api/archive answered ${exported.result.status}: ${exported.result.text}`);
  const aAfter = memoryOf(a.child.pid);
  await stopServer(a);
  const archiveBytes = statSync(file).size;
  const inflated = await inflatedSize(file);

  const target = await migratedDatabase('target');
  const b = await startServer(target.env);
  const bReady = memoryOf(b.child.pid);
  const imported = await timed(() => request(b.port, 'POST', '/api/archive', { body: createReadStream(file), headers: { 'content-type': 'application/gzip' } }));
  if (imported.result.status !== 200) throw new Error(`POST /api/archive answered ${imported.result.status}: ${imported.result.text}`);
  const bAfter = memoryOf(b.child.pid);
  await stopServer(b);
  const restored = await countsOf(target.url);
  const differing = Object.keys(seeded).filter((t) => !REVISION_TABLES.includes(t) && t !== 'config_changes' && restored[t] !== seeded[t]);
  if (differing.length > 0) throw new Error(`the restore's row counts differ from the source's: ${differing.map((t) => `${t} ${restored[t]} ≠ ${seeded[t]}`).join(', ')}`);

  // ---- the baseline: COPY out through gzip, and back in ----
  const copyDir = mkdtempSync(join(work, 'copy-'));
  const copiedOut = await timed(async () => {
    for (const table of tables) {
      const out = psql(source.url, `COPY ${pg.escapeIdentifier(table)} TO STDOUT`, { stdout: 'pipe' });
      await Promise.all([pipeline(out.child.stdout, createGzip({ level: GZIP_LEVEL }), createWriteStream(join(copyDir, `${table}.gz`))), out.done]);
    }
  });
  const copyBytes = tables.reduce((sum, t) => sum + statSync(join(copyDir, `${t}.gz`)).size, 0);
  const floor = await migratedDatabase('copy');
  // In the archive's own restore order (its header), without the seeded one-row revision tables.
  const order = JSON.parse(await new Promise((resolve, reject) => {
    let text = '';
    const gunzip = createReadStream(file).pipe(createGunzip());
    gunzip.on('data', (c) => {
      text += c;
      const newline = text.indexOf('\n');
      if (newline >= 0) {
        gunzip.destroy();
        resolve(text.slice(0, newline));
      }
    }).once('error', reject);
  })).tables.map((t) => t.name).filter((t) => tables.includes(t) && !REVISION_TABLES.includes(t));
  const copiedIn = await timed(async () => {
    for (const table of order) {
      // The run counters: what the triggers counted while runs were copied in is replaced, as a restore does.
      const copy = `COPY ${pg.escapeIdentifier(table)} FROM STDIN`;
      const into = psql(floor.url, table === 'run_counts' ? ['DELETE FROM run_counts', copy] : copy, { stdin: 'pipe' });
      await Promise.all([pipeline(createReadStream(join(copyDir, `${table}.gz`)), createGunzip(), into.child.stdin), into.done]);
    }
  });

  const rows = Object.values(seeded).reduce((sum, n) => sum + n, 0);
  const row = (name, ms, bytes, memory) => `| ${name.padEnd(34)} | ${seconds(ms).padStart(9)} | ${`${Math.round(rows / (ms / 1000))}`.padStart(9)} | ${rate(inflated, ms).padStart(12)} | ${mib(bytes).padStart(10)} | ${memory.padEnd(44)} |`;
  const memory = (ready, after) => `peak RSS ${mib(ready.peak)} ready → ${mib(after.peak)} (+${mib(after.peak - ready.peak)})`;
  console.log(`\n${rows} rows; the archive is ${mib(inflated)} of NDJSON, ${mib(archiveBytes)} gzip'd (level ${GZIP_LEVEL}). node ${process.version}, ${NODE_FLAGS.join(' ')}.`);
  console.log(`| ${'operation'.padEnd(34)} | ${'time'.padStart(9)} | ${'rows/s'.padStart(9)} | ${'NDJSON/s'.padStart(12)} | ${'gzip size'.padStart(10)} | ${'server memory'.padEnd(44)} |`);
  console.log(`|${'-'.repeat(36)}|${'-'.repeat(11)}|${'-'.repeat(11)}|${'-'.repeat(14)}|${'-'.repeat(12)}|${'-'.repeat(46)}|`);
  console.log(row('export: GET /api/archive', exported.ms, archiveBytes, memory(aReady, aAfter)));
  console.log(row('baseline: psql COPY TO + gzip', copiedOut.ms, copyBytes, '(psql and this process)'));
  console.log(row('import: POST /api/archive', imported.ms, archiveBytes, memory(bReady, bAfter)));
  console.log(row('baseline: gunzip + psql COPY FROM', copiedIn.ms, copyBytes, '(psql and this process)'));
  console.log('(NDJSON/s: the archive\'s uncompressed size over each time, the same yardstick for all four rows.)');
  const logs = [a.log(), b.log()].filter(Boolean).join('\n');
  if (logs) console.log(`server log (warn and above):\n${logs.split('\n').slice(-10).join('\n')}`);
} catch (error) {
  if (!interrupted) console.error(`bench failed: ${error.stack ?? error}`);
  exitCode = 1;
} finally {
  if (!interrupted) await cleanup();
}
process.exit(exitCode);
