// npm run bench:api — latency of the runs API of the BUILT server (run `npm run build` first;
// dist/ is built when missing, but a stale dist/ is measured as it is) on a database holding
// BENCH_RUNS runs (100,000) and BENCH_EVENTS run events (1,000,000), beside the same SQL run
// directly through `pg` in the same run. Three requests:
//
//   list           GET /api/runs?limit=50                           (newest first, page + total)
//   list filtered  GET /api/runs?limit=50&state=S&project=P         (S, P rotate over every pair)
//   events         GET /api/runs/:id/events?limit=500&after=A       (a run with thousands of events)
//
// The direct baseline is the route's own SQL, imported from dist/ (`runPageSql` of
// run-reader.service.js, `RUN_EVENTS_SQL` of run-events.reader.js), run on a `pg` pool of the
// server's size (10); for the list, page and total concurrently as the route runs them. Offsets
// (pages 1..BENCH_PAGES), the state/project pair and the events' `after` vary from one iteration to
// the next (seeded PRNG, BENCH_SEED), each iteration giving the server and the direct query the
// same parameters, in alternating order. After BENCH_WARMUP (100) untimed iterations per request,
// BENCH_REQUESTS (1000) timed iterations, sequential, over one keep-alive HTTP connection; a
// request is timed from its send to the last byte of its answer. Targets per request: server
// p99 ≤ 25 ms, and server p50 ≤ 2 × direct p50. The list rows also show the page and the count
// query alone (direct), which tells where the time goes, and the server's floor (GET /health, no
// database) is printed beside the table; BENCH_EXPLAIN=1 also prints EXPLAIN
// (ANALYZE, BUFFERS) of each request's costliest draw (last page, largest pair, longest run).
//
// The database (DATABASE_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/postgres) is a fresh
// one, migrated with `node dist/cli/main.js migrate`, seeded with set-based SQL (generate_series;
// foreign keys unchecked, the events' primary key built after the load), then VACUUM ANALYZEd (as
// autovacuum would have left tables of that age). The server is
// `node --max-semi-space-size=4 dist/main.js` (as `npm start`) with DATABASE_URL on it, no
// KVSTORE_URL, no bootstrap file, LOG_LEVEL=warn, PORT free. The server is stopped and the
// database dropped at the end, also on failure and on SIGINT/SIGTERM. Prints figures; exits 0
// when the figures were taken (whether or not targets were met), 1 when the bench itself failed.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { ADMIN_URL, admin, cleanEnv, freePort } from './bench-support.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NODE = process.execPath;
const NODE_FLAGS = ['--max-semi-space-size=4']; // as package.json "start"
const RUNS = Number(process.env.BENCH_RUNS ?? 100_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 1000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 100);
const PAGES = Number(process.env.BENCH_PAGES ?? 10);
const SEED = Number(process.env.BENCH_SEED ?? 1);
const EXPLAIN = process.env.BENCH_EXPLAIN === '1';
const LIST_LIMIT = 50;
const EVENTS_LIMIT = 500;
const TARGET_P99_MS = 25;
const TARGET_RATIO = 2;
const BOOT_TIMEOUT_MS = 60_000;
/** Every this many runs, one has thousands of events (100 of them at 100,000 runs). */
const BIG_RUN_EVERY = 1000;

const PROJECTS = [['web', 30], ['api', 20], ['mobile', 15], ['infra', 10], ['billing', 10], ['search', 7], ['docs', 5], ['data', 3]];
const STATES = ['queued', 'running', 'parked', 'succeeded', 'failed', 'cancelled'];

if (!existsSync(join(ROOT, 'dist/main.js'))) {
  console.log('building dist/ …');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
}
const dist = (path) => import(pathToFileURL(join(ROOT, 'dist', path)).href);
const { runPageSql } = await dist('runs/resource/run-reader.service.js');
const { RUN_EVENTS_SQL } = await dist('dashboard/run-events.reader.js');

const id = randomBytes(4).toString('hex');
const dbName = `bench_api_${id}`;
const dbUrl = new URL(ADMIN_URL);
dbUrl.pathname = `/${dbName}`;
const work = mkdtempSync(join(tmpdir(), 'bench-api-'));
let databaseCreated = false;
let server = null;
let pool = null;
let agent = null;

// ---- cleanup ---------------------------------------------------------------------------------


const exited = (child) => child.exitCode !== null || child.signalCode !== null;

async function stopServer() {
  const child = server;
  server = null;
  if (!child || exited(child)) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await gone;
  clearTimeout(killer);
}

let cleaning = null;
let interrupted = false;
function cleanup() {
  cleaning ??= (async () => {
    agent?.destroy();
    await stopServer().catch(() => undefined);
    await pool?.end().catch(() => undefined);
    if (databaseCreated) {
      databaseCreated = false;
      await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch((error) => console.error(`could not drop ${dbName}: ${error.message}`));
    }
    rmSync(work, { recursive: true, force: true });
  })();
  return cleaning;
}
process.on('exit', () => {
  if (server && !exited(server)) server.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    interrupted = true;
    console.error(`\n${signal}: stopping the server and dropping ${dbName} …`);
    void cleanup().finally(() => process.exit(130));
  });
}

// ---- helpers -------------------------------------------------------------------------------

/** mulberry32: a small seeded PRNG, so that a re-run asks for the same pages. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}



/** GET over the keep-alive agent: status, body text and the time from send to the last byte. */
function get(port, path) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = http.request({ host: '127.0.0.1', port, path, method: 'GET', agent }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => resolve({ ms: performance.now() - started, status: response.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.setTimeout(30_000, () => request.destroy(new Error(`timeout: GET ${path}`)));
    request.on('error', reject);
    request.end();
  });
}

async function timed(fn) {
  const started = performance.now();
  const result = await fn();
  return { ms: performance.now() - started, result };
}

function percentiles(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]);
  return { p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? NaN, n: sorted.length };
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

// ---- seeding ---------------------------------------------------------------------------------

/**
 * 100,000 runs over 85 days (newest live: queued/running/parked; the rest succeeded/failed/cancelled),
 * 8 projects of skewed size, 4 platforms; ~30 % with sandboxes, ~60 % with steps, ~5 % with a pull
 * request; 0–14 events per run, and one run in BIG_RUN_EVERY with thousands, to EVENTS in all.
 * Events go in in time order, so a long run's events interleave with its neighbours' on disk.
 */
async function seed(client) {
  const timings = {};
  const step = async (name, sql, params) => {
    const t = performance.now();
    const result = await client.query(sql, params);
    timings[name] = performance.now() - t;
    return result;
  };
  // Bulk-load settings of this session only: the rows are consistent by construction, so the
  // foreign-key triggers are skipped (session_replication_role = replica; the seeding role is a
  // superuser), and the events' primary key is built once after the load instead of row by row
  // (same name and definition as the migration's).
  await client.query(`SET synchronous_commit = off; SET work_mem = '256MB'; SET maintenance_work_mem = '256MB';
    SET session_replication_role = replica; SELECT setseed(${(SEED % 1000) / 1000})`);
  const total = PROJECTS.reduce((sum, [, w]) => sum + w, 0);
  let acc = 0;
  const projectCase = PROJECTS.map(([name, w]) => {
    acc += w;
    return `WHEN u < ${acc / total} THEN '${name}'`;
  }).join(' ');
  const liveFraction = 0.003;
  await step('plan', `
    CREATE TEMP TABLE seed AS
    SELECT i, gen_random_uuid() AS id, project, state, platform, pipeline, created_at,
           CASE WHEN state <> 'queued' THEN created_at + (1 + floor(random() * 30)) * interval '1 s' END AS started_at,
           CASE WHEN state IN ('succeeded', 'failed', 'cancelled') THEN created_at + (40 + floor(random() * 1200)) * interval '1 s' END AS finished_at,
           CASE WHEN state IN ('queued', 'running', 'parked') THEN 'L-' || i
                WHEN random() < 0.05 THEN NULL
                ELSE upper(left(project, 3)) || '-' || (1 + floor(random() * 5000))::int END AS ticket,
           CASE WHEN state = 'queued' THEN 0 WHEN random() < 0.3 THEN 1 + (random() < 0.3)::int ELSE 0 END AS sandboxes,
           CASE WHEN state = 'queued' OR random() < 0.4 THEN 0 ELSE 2 + floor(random() * 4)::int END AS steps,
           state NOT IN ('queued', 'running', 'parked') AND random() < 0.05 AS has_pr,
           CASE WHEN i % ${BIG_RUN_EVERY} = 0 THEN -1 ELSE floor(random() * 15)::int END AS events
    FROM (
      SELECT i,
             (CASE ${projectCase} ELSE '${PROJECTS.at(-1)[0]}' END) AS project,
             CASE WHEN i > ${RUNS} - ${Math.max(3, Math.round(RUNS * liveFraction))} THEN (ARRAY['queued', 'running', 'parked'])[1 + floor(random() * 3)::int]
                  WHEN v < 0.70 THEN 'succeeded' WHEN v < 0.92 THEN 'failed' ELSE 'cancelled' END AS state,
             (ARRAY['platform-a', 'platform-b', 'platform-c', 'platform-d'])[1 + floor(random() * 4)::int] AS platform,
             (ARRAY['code', 'lint', 'security-scan', 'pr-review', 'deploy'])[1 + floor(random() * 5)::int] AS pipeline,
             now() - interval '85 days' * (${RUNS} - i)::float8 / ${RUNS} - random() * interval '60 s' AS created_at
      FROM (SELECT i, random() AS u, random() AS v FROM generate_series(1, ${RUNS}) i) g
    ) r`);
  // The runs with thousands of events share what the others leave of EVENTS, alternately ±50 %.
  const { rows: [{ small, big }] } = await client.query('SELECT COALESCE(sum(events) FILTER (WHERE events >= 0), 0)::bigint AS small, count(*) FILTER (WHERE events < 0)::int AS big FROM seed');
  const rest = EVENTS - Number(small);
  if (big === 0 || rest / big < 2 * (EVENTS_LIMIT + 1)) {
    throw new Error(`BENCH_RUNS=${RUNS}, BENCH_EVENTS=${EVENTS} leave ${rest} events for ${big} long runs: each needs ≥ ${2 * (EVENTS_LIMIT + 1)}`);
  }
  const base = Math.floor(rest / big);
  const sizes = Array.from({ length: big }, (_, k) => (big % 2 === 1 && k === big - 1 ? base : base + (k % 2 === 0 ? 1 : -1) * Math.floor(base / 2)));
  sizes[0] += rest - sizes.reduce((a, b) => a + b, 0);
  await client.query('UPDATE seed SET events = b.n FROM (SELECT row_number() OVER (ORDER BY i) AS k, i FROM seed WHERE events < 0) o JOIN unnest($1::int[]) WITH ORDINALITY b(n, k) USING (k) WHERE seed.i = o.i', [sizes]);
  await client.query('CREATE INDEX ON seed (i); ANALYZE seed');

  await step('runs', `
    INSERT INTO runs (id, platform, project, ticket, pipeline, state, created_at, started_at, finished_at, error,
                      event_seq, model_calls, input_tokens, output_tokens, cost_usd)
    SELECT id, platform, project, ticket, pipeline, state, created_at, started_at, finished_at,
           CASE WHEN state = 'failed' THEN 'step "npm test" exited with code ' || (1 + i % 3) || E'\\n' || repeat('FAIL src/app.spec.ts ', 1 + i % 5) END,
           events,
           m, m * (900 + i % 4000), m * (150 + i % 700), round((m * 0.0125)::numeric, 6)
    FROM (SELECT s.*, CASE WHEN pipeline IN ('code', 'pr-review') AND state <> 'queued' THEN 1 + i % 40 ELSE 0 END AS m FROM seed s) s
    ORDER BY i`);
  await step('run_sandboxes', `
    INSERT INTO run_sandboxes (run_id, repo, path_prefix, state, created_at)
    SELECT s.id, b.repo, b.prefix,
           CASE WHEN s.state IN ('running', 'parked') THEN 'ready' WHEN s.i % 97 = 0 THEN 'failed' ELSE 'destroyed' END,
           s.created_at + b.n * interval '1 s'
    FROM seed s JOIN (VALUES (1, 'web', 'web/'), (2, 'api', 'api/')) b(n, repo, prefix) ON b.n <= s.sandboxes`);
  await step('run_steps', `
    INSERT INTO run_steps (run_id, position, name, state, started_at, finished_at)
    SELECT s.id, p, (ARRAY['checkout', 'npm ci', 'npm run build', 'npm test', 'publish'])[p],
           CASE WHEN p < s.steps OR s.state = 'succeeded' THEN 'succeeded' WHEN s.state IN ('running', 'parked') THEN 'running' ELSE 'failed' END,
           s.started_at + (p - 1) * interval '20 s',
           CASE WHEN p < s.steps OR s.state NOT IN ('running', 'parked') THEN s.started_at + p * interval '20 s' END
    FROM seed s, generate_series(1, s.steps) p
    WHERE s.started_at IS NOT NULL`);
  await step('pull_requests', `
    INSERT INTO pull_requests (run_id, project, ticket, repo, url, number, state, opened_at, updated_at)
    SELECT id, project, ticket, 'web', 'https://github.com/acme/' || project || '/pull/' || i, i,
           (ARRAY['open', 'merged', 'closed'])[1 + i % 3], finished_at, finished_at
    FROM seed WHERE has_pr`);
  await client.query('ALTER TABLE run_events DROP CONSTRAINT run_events_pkey');
  await step('run_events', `
    INSERT INTO run_events (run_id, seq, at, kind, sandbox, text)
    SELECT s.id, g, s.created_at + g * interval '150 ms',
           CASE WHEN g % 50 = 1 THEN 'step' WHEN g % 20 = 0 THEN 'stderr' ELSE 'stdout' END,
           CASE WHEN s.sandboxes = 2 AND g % 2 = 0 THEN 'api' WHEN s.sandboxes > 0 THEN 'web' END,
           (ARRAY[
             'npm ci: added 1243 packages, and audited 1244 packages in 31s',
             'PASS src/runs/run-consumer.service.spec.ts (4.215 s)',
             'FAIL src/app.spec.ts > GET /health > answers 200: expected 503 to be 200',
             '> tsc -p tsconfig.build.json',
             'warning: LF will be replaced by CRLF the next time Git touches it',
             '    at Object.<anonymous> (/sandbox/web/src/server.ts:42:11)',
             'Cloning into ''/sandbox/web''... done.',
             'Step 3/7 : RUN npm run build',
             '  ✓ renders the run list with its filters (182 ms)',
             'error TS2345: Argument of type ''string'' is not assignable to parameter of type ''number''.',
             'Lint: 0 errors, 12 warnings',
             'exit code 0'])[1 + (s.i * 7 + g * 13) % 12] || ' #' || g
    FROM seed s, generate_series(1, s.events) g
    ORDER BY s.created_at + g * interval '150 ms'`);
  await step('run_events key', 'ALTER TABLE run_events ADD CONSTRAINT run_events_pkey PRIMARY KEY (run_id, seq)');
  await step('vacuum analyze', 'VACUUM (ANALYZE) runs, run_events, run_sandboxes, run_steps, pull_requests');

  const { rows: counts } = await client.query(`SELECT
      (SELECT count(*) FROM runs)::int AS runs, (SELECT count(*) FROM run_events)::int AS events,
      (SELECT count(*) FROM run_sandboxes)::int AS sandboxes, (SELECT count(*) FROM run_steps)::int AS steps,
      (SELECT count(*) FROM pull_requests)::int AS pull_requests`);
  const { rows: pairs } = await client.query('SELECT project, state, count(*)::int AS n FROM runs GROUP BY project, state ORDER BY project, state');
  const { rows: long } = await client.query(`SELECT id, event_seq AS n FROM runs WHERE event_seq >= ${2 * (EVENTS_LIMIT + 1)} ORDER BY created_at`);
  return { counts: counts[0], pairs, long, timings };
}

// ---- the requests ----------------------------------------------------------------------------

/** Each kind: a parameter draw, its URL, the direct SQL, and a check that both say the same. */
function kinds(pairs, long) {
  const rand = prng(SEED);
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const page = (n) => LIST_LIMIT * Math.floor(rand() * Math.max(1, Math.min(PAGES, Math.ceil(n / LIST_LIMIT))));
  const totalRuns = pairs.reduce((sum, p) => sum + p.n, 0);
  const listKind = (name, draw) => ({
    name,
    draw,
    url: ({ filter, offset }) => `/api/runs?${new URLSearchParams({ limit: String(LIST_LIMIT), ...(offset ? { offset: String(offset) } : {}), ...filter })}`,
    sql: ({ filter, offset }) => runPageSql(filter, LIST_LIMIT, offset),
    /** As the route: page and total concurrently on the pool. */
    direct: async (sql) => {
      const [rows, totals] = await Promise.all([pool.query(sql.page, sql.pageParams), pool.query(sql.total, sql.params)]);
      return { ids: rows.rows.map((r) => r.id), total: totals.rows[0].total };
    },
    /** The worst draw: the last page measured (and, filtered, the largest pair). */
    worst: () => {
      const top = [...pairs].sort((a, b) => b.n - a.n)[0];
      const filter = name.includes('state') ? { state: top.state, project: top.project } : {};
      const n = name.includes('state') ? top.n : totalRuns;
      const sql = runPageSql(filter, LIST_LIMIT, LIST_LIMIT * Math.max(0, Math.min(PAGES, Math.ceil(n / LIST_LIMIT)) - 1));
      return [{ label: 'page', text: sql.page, values: sql.pageParams }, { label: 'total', text: sql.total, values: sql.params }];
    },
    parts: {
      'page query alone': (sql) => pool.query(sql.page, sql.pageParams),
      'count query alone': (sql) => pool.query(sql.total, sql.params),
    },
    same: (body, direct) => body.total === direct.total && JSON.stringify(body.items.map((r) => r.id)) === JSON.stringify(direct.ids),
  });
  return [
    listKind('GET /api/runs?limit=50', () => ({ filter: {}, offset: page(totalRuns) })),
    listKind('GET /api/runs?limit=50&state&project', () => {
      const { project, state, n } = pick(pairs);
      return { filter: { state, project }, offset: page(n) };
    }),
    {
      name: 'GET /api/runs/:id/events?limit=500',
      draw: () => {
        const run = pick(long);
        return { run: run.id, after: Math.floor(rand() * (run.n - EVENTS_LIMIT)) };
      },
      url: ({ run, after }) => `/api/runs/${run}/events?limit=${EVENTS_LIMIT}${after ? `&after=${after}` : ''}`,
      // The route asks for one row more than the page, to know whether more follow.
      sql: ({ run, after }) => ({ text: RUN_EVENTS_SQL, values: [run, after, EVENTS_LIMIT + 1] }),
      direct: async (sql) => (await pool.query(sql.text, sql.values)).rows.map((r) => r.seq),
      worst: () => {
        const run = [...long].sort((a, b) => b.n - a.n)[0];
        return [{ label: 'events', text: RUN_EVENTS_SQL, values: [run.id, run.n - EVENTS_LIMIT - 1, EVENTS_LIMIT + 1] }];
      },
      parts: {},
      same: (body, seqs) => body.items.length === EVENTS_LIMIT && body.nextAfter === seqs[EVENTS_LIMIT - 1]
        && JSON.stringify(body.items.map((e) => e.seq)) === JSON.stringify(seqs.slice(0, EVENTS_LIMIT)),
    },
  ];
}

async function measure(kind, port) {
  const server = [];
  const direct = [];
  const parts = Object.fromEntries(Object.keys(kind.parts).map((name) => [name, []]));
  let bytes = 0;
  for (let i = -WARMUP; i < REQUESTS; i++) {
    const params = kind.draw();
    const url = kind.url(params);
    const sql = kind.sql(params);
    const viaServer = async () => {
      const answer = await get(port, url);
      if (answer.status !== 200) throw new Error(`GET ${url} answered ${answer.status}: ${answer.body.slice(0, 500)}`);
      return answer;
    };
    const viaPg = () => timed(() => kind.direct(sql));
    // Alternate which goes first, so neither always finds the other's pages freshly cached.
    let served;
    let own;
    if ((i & 1) === 0) {
      served = await viaServer();
      own = await viaPg();
    } else {
      own = await viaPg();
      served = await viaServer();
    }
    // The first draws are checked: the server and the direct SQL give the same answer.
    if (i < -WARMUP + 5 && !kind.same(JSON.parse(served.body), own.result)) throw new Error(`${url}: the server's answer differs from the direct SQL's`);
    for (const [name, run] of Object.entries(kind.parts)) {
      const t = await timed(() => run(sql));
      if (i >= 0) parts[name].push(t.ms);
    }
    if (i < 0) continue;
    server.push(served.ms);
    direct.push(own.ms);
    bytes += Buffer.byteLength(served.body);
  }
  return {
    name: kind.name,
    server: percentiles(server),
    direct: percentiles(direct),
    parts: Object.entries(parts).map(([name, values]) => ({ name, ...percentiles(values) })),
    meanBytes: bytes / REQUESTS,
  };
}

// ---- main ------------------------------------------------------------------------------------

let exitCode = 0;
try {
  const t0 = performance.now();
  await admin(`CREATE DATABASE ${dbName}`);
  databaseCreated = true;
  const env = cleanEnv({ DATABASE_URL: dbUrl.href, SERVICE_DATA_DIR: work, SERVICE_CONFIG: join(work, 'no-such-service.yml'), LOG_LEVEL: 'warn' });
  execFileSync(NODE, ['dist/cli/main.js', 'migrate'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const migratedMs = performance.now() - t0;

  const seeder = new pg.Client({ connectionString: dbUrl.href });
  await seeder.connect();
  const t1 = performance.now();
  let seeded;
  try {
    seeded = await seed(seeder);
  } finally {
    await seeder.end();
  }
  const seedMs = performance.now() - t1;
  const { counts, pairs, long, timings } = seeded;
  console.log(`bench:api — database ${dbName}: created and migrated in ${seconds(migratedMs)}; seeded in ${seconds(seedMs)} (${Object.entries(timings).map(([k, v]) => `${k} ${seconds(v)}`).join(', ')})`);
  console.log(`  ${counts.runs} runs (${pairs.length} project/state pairs), ${counts.events} run events (${long.length} runs with ${Math.min(...long.map((r) => r.n))}–${Math.max(...long.map((r) => r.n))} events), ${counts.sandboxes} sandboxes, ${counts.steps} steps, ${counts.pull_requests} pull requests`);

  const port = await freePort();
  server = spawn(NODE, [...NODE_FLAGS, 'dist/main.js'], { cwd: ROOT, env: { ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk) => {
    output = (output + chunk).slice(-8000);
  };
  server.stdout.on('data', keep);
  server.stderr.on('data', keep);
  // Listening (/health), then the database ready (the runs route answers 200, not 503).
  const booted = performance.now();
  agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  for (const path of ['/health', '/api/runs?limit=1']) {
    for (;;) {
      if (exited(server)) throw new Error(`dist/main.js exited (${server.exitCode ?? server.signalCode}):\n${output.trim()}`);
      if (performance.now() - booted > BOOT_TIMEOUT_MS) throw new Error(`dist/main.js: no 200 from ${path} within ${BOOT_TIMEOUT_MS} ms:\n${output.trim()}`);
      const answer = await get(port, path).catch(() => null);
      if (answer?.status === 200) break;
      await sleep(50);
    }
  }
  console.log(`  server: node ${NODE_FLAGS.join(' ')} dist/main.js (node ${process.version}) on :${port}, ready in ${seconds(performance.now() - booted)}`);
  pool = new pg.Pool({ connectionString: dbUrl.href, max: 10 });

  if (EXPLAIN) {
    // The plans of the worst draw of each request, as the lead re-running this would want them.
    for (const kind of kinds(pairs, long)) {
      for (const q of kind.worst()) {
        const { rows } = await pool.query(`EXPLAIN (ANALYZE, BUFFERS) ${q.text}`, q.values);
        console.log(`\nEXPLAIN ANALYZE, ${kind.name}, ${q.label} (${JSON.stringify(q.values)}):\n${rows.map((r) => `  ${r['QUERY PLAN']}`).join('\n')}`);
      }
    }
    console.log('');
  }

  const results = [];
  for (const kind of kinds(pairs, long)) {
    const r = await measure(kind, port);
    results.push(r);
    console.log(`  measured ${r.name}: server p50 ${r.server.p50.toFixed(2)} ms, direct p50 ${r.direct.p50.toFixed(2)} ms`);
  }
  // The server's own floor: a route that reads no database (HTTP, Fastify, Nest, the guard).
  const floor = [];
  for (let i = -WARMUP; i < REQUESTS; i++) {
    const answer = await get(port, '/health');
    if (answer.status !== 200) throw new Error(`GET /health answered ${answer.status}`);
    if (i >= 0) floor.push(answer.ms);
  }
  const health = percentiles(floor);
  if (output.trim()) console.log(`server log (warn and above):\n${output.trim().split('\n').slice(-10).join('\n')}`);
  await stopServer();

  const ms = (v) => `${v.toFixed(2)} ms`;
  const header = ['request', 'server p50', 'server p99', 'direct SQL p50', 'direct SQL p99', 'p50 ratio', `p99 ≤ ${TARGET_P99_MS} ms`, `ratio ≤ ${TARGET_RATIO}×`];
  const table = results.map((r) => {
    const ratio = r.server.p50 / r.direct.p50;
    return [r.name, ms(r.server.p50), ms(r.server.p99), ms(r.direct.p50), ms(r.direct.p99), `${ratio.toFixed(2)}×`,
      r.server.p99 <= TARGET_P99_MS ? 'PASS' : 'MISS', ratio <= TARGET_RATIO ? 'PASS' : 'MISS'];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  console.log('');
  console.log(`${REQUESTS} sequential requests each after ${WARMUP} warm-up, one keep-alive connection; direct SQL = the route's SQL on a pg pool of 10 (list: page + total concurrently). Offsets: pages 1–${PAGES}; state/project: all ${pairs.length} pairs; events: ${long.length} runs, random after.`);
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of table) console.log(line(row));
  console.log('');
  for (const r of results) {
    const parts = r.parts.map((p) => `${p.name} p50 ${ms(p.p50)} / p99 ${ms(p.p99)}`).join('; ');
    console.log(`${r.name}: answer ${(r.meanBytes / 1024).toFixed(1)} KiB on average, server max ${ms(r.server.max)}${parts ? `; direct ${parts}` : ''}`);
  }
  console.log(`server floor, GET /health (no database): p50 ${ms(health.p50)}, p99 ${ms(health.p99)}`);
  const missed = results.filter((r) => r.server.p99 > TARGET_P99_MS || r.server.p50 / r.direct.p50 > TARGET_RATIO);
  console.log(missed.length === 0 ? 'targets: all met' : `targets: missed by ${missed.map((r) => r.name).join(', ')}`);
} catch (error) {
  // Interrupted: the signal handler is stopping everything; what failed meanwhile is its doing.
  if (!interrupted) console.error(`bench failed: ${error.stack ?? error}`);
  exitCode = 1;
} finally {
  await cleanup();
}
process.exit(exitCode);
