// npm run bench:webhooks — signed GitHub deliveries (`issues` labeled, valid X-Hub-Signature-256),
// each for a distinct ticket, against the BUILT server (dist/main.js, built first when missing),
// started as a child process on a fresh migrated PostgreSQL database and its own Redis key prefix.
// Prints claims/second sustained (BENCH_CONNECTIONS connections for BENCH_SECONDS s) and p50/p99
// latency at a paced BENCH_RATE requests/s for BENCH_PACED_SECONDS s (open loop, see paced-load.mjs),
// beside a baseline measured in the same run: a minimal
// Fastify + Redis `SET NX` server (inline script) taking the same signed requests.
//
// DATABASE_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres), KVSTORE_URL (default
// redis://127.0.0.1:6379/0). The database and the key prefix are removed afterwards.
//
// The run engine is held off for the measurement: the bench holds the leader leases
// (`<prefix>leader:capacity_queue|housekeeping|poller`) as a foreign replica and configures a
// bounded capacity, so claimed runs wait for admission instead of executing pipelines on the same
// two cores. What is measured is webhook ingress + claim (lock, database, queue) only.
import { execFileSync, spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createNetServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { pacedLoad } from './paced-load.mjs';
import { ADMIN_URL, admin } from './bench-support.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const RATE = Number(process.env.BENCH_RATE ?? 100);
// BENCH_SUSTAINED_RATE: hold the sustained phase to this many requests/s (default: as fast as answered), for CPU per claim below saturation.
const SUSTAINED_RATE = process.env.BENCH_SUSTAINED_RATE ? Number(process.env.BENCH_SUSTAINED_RATE) : undefined;
const PACED_SECONDS = Number(process.env.BENCH_PACED_SECONDS ?? 20);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const REDIS_URL = process.env.KVSTORE_URL ?? 'redis://127.0.0.1:6379/0';
const NODE = process.execPath;
const SECRET = 'bench-webhook-secret';
const REPO = 'https://github.com/acme/bench-web';
// Target (issue 31): sustained claims/s ≥ 0.9× the minimal durable claim of the same run.
const TARGET_CLAIMS_RATIO = 0.9;
// Leak check: BENCH_LEAK_DELIVERIES (100,000; 0 skips it) distinct-ticket deliveries to a fresh server.
const LEAK_DELIVERIES = Number(process.env.BENCH_LEAK_DELIVERIES ?? 100_000);
const LEAK_CONNECTIONS = 20;
const LEAK_SLOPE_LIMIT = 2;
// BENCH_CPU_PROF=<dir>: the service runs with --cpu-prof and writes its profile there.
const PROFILE_DIR = process.env.BENCH_CPU_PROF ?? null;
const TARGET_P99_MS = 25;
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

if (!existsSync(join(ROOT, 'dist/main.js'))) {
  console.log('building dist/ …');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
}

const id = randomBytes(4).toString('hex');
const dbName = `bench_webhooks_${id}`;
const keyPrefix = `bench-webhooks-${id}:`;
const dir = mkdtempSync(join(tmpdir(), 'bench-webhooks-'));
const dbUrl = new URL(ADMIN_URL);
dbUrl.pathname = `/${dbName}`;
const redis = new Redis(REDIS_URL);
const children = [];


async function freePort() {
  const server = createNetServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitForHttp(url, child, what) {
  const until = Date.now() + 60_000;
  for (;;) {
    if (exited(child)) throw new Error(`${what} exited (${child.exitCode ?? child.signalCode})`);
    try {
      const response = await fetch(url);
      if (response.ok) return await response.text();
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`${what} did not answer ${url} within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function start(args, env, logName) {
  const log = createWriteStream(join(dir, logName));
  const child = spawn(NODE, args, { cwd: ROOT, env: { PATH: process.env.PATH, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  children.push(child);
  return child;
}

const exited = (child) => child.exitCode !== null || child.signalCode !== null;

async function stop(child) {
  if (exited(child)) return;
  if (PROFILE_DIR) {
    // Profiling: exit normally (closing stdin) so --cpu-prof writes its profile.
    child.stdin.end();
    const done = await Promise.race([new Promise((resolve) => child.once('exit', () => resolve(true))), new Promise((resolve) => setTimeout(resolve, 5000, false))]);
    if (done) return;
  }
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await gone;
  clearTimeout(killer);
}

async function deletePrefixKeys() {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}

// A real GitHub `issues` labeled delivery (octokit's example), re-numbered per request.
const { createRequire } = await import('node:module');
const examples = createRequire(import.meta.url)('@octokit/webhooks-examples');
const template = structuredClone(examples.find((d) => d.name === 'issues').examples.find((e) => e.action === 'labeled'));
template.repository.html_url = REPO;
const [head, tail] = JSON.stringify({ ...template, issue: { ...template.issue, number: 0x7ead } }).split(String(0x7ead));

/** One signed delivery for a new ticket, its body signed over its exact bytes. */
function signedDelivery(counter) {
  counter.next += 1;
  const body = `${head}${counter.next}${tail}`;
  return {
    path: '/webhook/platform-a',
    body,
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'issues',
      'x-github-delivery': `${id}-${counter.next}`,
      'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
    },
  };
}

/** autocannon request: every call a new ticket. */
function signedDeliveries(path, counter, statuses) {
  return [{
    method: 'POST',
    path,
    setupRequest(request) {
      const delivery = signedDelivery(counter);
      request.body = delivery.body;
      request.headers = delivery.headers;
      return request;
    },
    onResponse(status) {
      statuses[status] = (statuses[status] ?? 0) + 1;
    },
  }];
}

async function load(url, path, counter, opts) {
  const statuses = {};
  const result = await autocannon({
    url, connections: opts.connections, duration: opts.seconds, overallRate: opts.rate, timeout: 10,
    requests: signedDeliveries(path, counter, statuses),
  });
  return { result, statuses };
}

/** CPU seconds a process has used (user + system), from /proc/<pid>/stat. */
function processCpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0; // the process has exited
  }
}

/**
 * Where the CPU goes during a phase: the server process, Redis (INFO cpu: the whole server, so
 * nothing else should use it meanwhile) and the PostgreSQL backends connected to the bench's
 * database. On two shared cores, claims/s follows the sum of these per claim.
 */
async function cpuSnapshot(serverPid) {
  const info = await redis.info('cpu');
  const redisCpu = ['used_cpu_sys', 'used_cpu_user'].reduce((sum, k) => sum + Number(new RegExp(`^${k}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0), 0);
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  const { rows } = await client.query('SELECT pid FROM pg_stat_activity WHERE datname = $1', [dbName]).finally(() => client.end());
  return { server: processCpuSeconds(serverPid), redis: redisCpu, backends: new Map(rows.map((r) => [r.pid, processCpuSeconds(r.pid)])) };
}

function cpuPerClaim(before, after, claims) {
  let database = 0;
  for (const [pid, cpu] of after.backends) database += cpu - (before.backends.get(pid) ?? 0);
  const ms = (seconds) => (seconds * 1000) / Math.max(claims, 1);
  return { server: ms(after.server - before.server), redis: ms(after.redis - before.redis), database: ms(database) };
}

async function measure(name, url, path, counter, serverPid) {
  const warm = await load(url, path, counter, { connections: CONNECTIONS, seconds: WARMUP_SECONDS });
  // The fixed-rate phase first, so that it does not measure the aftermath of the overload
  // phase (its trigger-log backlog, autovacuum of the rows it wrote).
  const paced = await pacedLoad(url, () => signedDelivery(counter), { rate: RATE, seconds: PACED_SECONDS });
  const cpuBefore = await cpuSnapshot(serverPid);
  const sustained = await load(url, path, counter, { connections: CONNECTIONS, seconds: SECONDS, rate: SUSTAINED_RATE });
  const cpu = cpuPerClaim(cpuBefore, await cpuSnapshot(serverPid), sustained.statuses[202] ?? 0);
  const claims = (sustained.statuses[202] ?? 0) / sustained.result.duration;
  const others = (statuses) => Object.entries(statuses).filter(([s]) => s !== '202').map(([s, n]) => `${n}×${s}`);
  return {
    name,
    claims,
    cpu,
    sustainedLatency: sustained.result.latency,
    paced,
    errors: sustained.result.errors + sustained.result.timeouts + paced.errors,
    notClaimed: [...others(sustained.statuses), ...others(paced.statuses)].join(' ') || 'none',
    claimed202: (warm.statuses[202] ?? 0) + (sustained.statuses[202] ?? 0) + (paced.statuses[202] ?? 0),
  };
}

function rssMb(pid) {
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

/**
 * A fresh server takes LEAK_DELIVERIES deliveries for distinct tickets (each one a claim: ticket row,
 * run row, queued request), in tenths; its RSS is read after each tenth (after a 1 s pause). The
 * first tenth is warm-up (JIT, pools, caches); the slope is fitted over the second half.
 */
async function leakCheck(serviceEnv) {
  const port = await freePort();
  const server = start(['--max-semi-space-size=4', 'dist/main.js'], { ...serviceEnv, PORT: String(port), LOG_LEVEL: 'warn' }, 'leak.log');
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/health`, server, 'dist/main.js (leak check)');
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const counter = { next: 5_000_000 };
  const points = [{ at: 0, mb: rssMb(server.pid) }];
  const step = Math.ceil(LEAK_DELIVERIES / 10);
  const started = Date.now();
  let delivered = 0;
  while (delivered < LEAK_DELIVERIES) {
    const statuses = {};
    await autocannon({ url, connections: LEAK_CONNECTIONS, amount: step, timeout: 10, requests: signedDeliveries('/webhook/platform-a', counter, statuses) });
    delivered += step;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    points.push({ at: delivered, mb: rssMb(server.pid) });
    console.log(`  leak check: ${delivered} deliveries, RSS ${points.at(-1).mb.toFixed(1)} MB (${Object.entries(statuses).map(([k, n]) => `${n}×${k}`).join(' ')})`);
  }
  await stop(server);
  const half = points.filter((p) => p.at >= LEAK_DELIVERIES / 2);
  const n = half.length;
  const mx = half.reduce((a, p) => a + p.at, 0) / n;
  const my = half.reduce((a, p) => a + p.mb, 0) / n;
  const slope = half.reduce((a, p) => a + (p.at - mx) * (p.mb - my), 0) / half.reduce((a, p) => a + (p.at - mx) ** 2, 0);
  // Idle, after the warm-up tenth, middle, end.
  const shown = [points[0], points[1], points[Math.floor(points.length / 2)], points.at(-1)];
  return { delivered, seconds: (Date.now() - started) / 1000, points: shown, slopeMbPer10k: slope * 10_000 };
}

const BASELINE = `
import { createHmac, timingSafeEqual } from 'node:crypto';
import Fastify from 'fastify';
import { Redis } from 'ioredis';
const redis = new Redis(process.env.KVSTORE_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
const prefix = process.env.KEY_PREFIX;
const secret = process.env.SECRET;
const app = Fastify({ bodyLimit: 5 * 1024 * 1024 });
app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, raw, done) => {
  try { done(null, { raw, json: JSON.parse(raw.toString('utf8')) }); } catch (e) { e.statusCode = 400; done(e); }
});
app.get('/health', async () => 'ok');
app.post('/webhook/platform-a', async (req, reply) => {
  const expected = Buffer.from('sha256=' + createHmac('sha256', secret).update(req.body.raw).digest('hex'));
  const got = Buffer.from(String(req.headers['x-hub-signature-256'] ?? ''));
  reply.type('text/plain; charset=utf-8');
  if (got.length !== expected.length || !timingSafeEqual(got, expected)) return reply.code(401).send('Unauthorized');
  const ticket = String(req.body.json.issue.number);
  const ok = await redis.set(prefix + 'baseline:claim:' + ticket, '1', 'PX', 30000, 'NX');
  return ok === 'OK' ? reply.code(202).send('Accepted: ' + ticket + ' in bench') : reply.code(200).send('Already claimed: ' + ticket);
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
`;

// The minimal durable claim (issue 31): what a claim must do at least, written plainly: verify the
// signature, `SET NX` the ticket's claim, then ONE transaction inserting a ticket row and a run row
// (tables of its own in the same database), then one BullMQ queue add. No framework, no config.
const DURABLE_BASELINE = `
import { createHmac, timingSafeEqual, randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { Redis } from 'ioredis';
import { Queue } from 'bullmq';
import pg from 'pg';
const redis = new Redis(process.env.KVSTORE_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
const queue = new Queue('baseline-requests', { connection: new Redis(process.env.KVSTORE_URL, { maxRetriesPerRequest: null }), prefix: process.env.KEY_PREFIX + 'bull' });
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
await pool.query('CREATE TABLE IF NOT EXISTS baseline_tickets (id uuid PRIMARY KEY, project text NOT NULL, ref text NOT NULL, title text, created_at timestamptz NOT NULL DEFAULT now(), UNIQUE (project, ref))');
await pool.query('CREATE TABLE IF NOT EXISTS baseline_runs (id uuid PRIMARY KEY, ticket_id uuid NOT NULL REFERENCES baseline_tickets(id), pipeline text NOT NULL, state text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())');
const prefix = process.env.KEY_PREFIX;
const secret = process.env.SECRET;
const app = Fastify({ bodyLimit: 5 * 1024 * 1024 });
app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, raw, done) => {
  try { done(null, { raw, json: JSON.parse(raw.toString('utf8')) }); } catch (e) { e.statusCode = 400; done(e); }
});
app.get('/health', async () => 'ok');
app.post('/webhook/platform-a', async (req, reply) => {
  const expected = Buffer.from('sha256=' + createHmac('sha256', secret).update(req.body.raw).digest('hex'));
  const got = Buffer.from(String(req.headers['x-hub-signature-256'] ?? ''));
  reply.type('text/plain; charset=utf-8');
  if (got.length !== expected.length || !timingSafeEqual(got, expected)) return reply.code(401).send('Unauthorized');
  const ticket = String(req.body.json.issue.number);
  const ok = await redis.set(prefix + 'durable:claim:' + ticket, '1', 'PX', 30000, 'NX');
  if (ok !== 'OK') return reply.code(200).send('Already claimed: ' + ticket);
  const ticketId = randomUUID();
  const runId = randomUUID();
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('INSERT INTO baseline_tickets (id, project, ref, title) VALUES ($1, $2, $3, $4)', [ticketId, 'bench', ticket, req.body.json.issue.title]);
    await client.query('INSERT INTO baseline_runs (id, ticket_id, pipeline, state) VALUES ($1, $2, $3, $4)', [runId, ticketId, 'code', 'queued']);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
  await queue.add('run', { runId }, { jobId: runId, removeOnComplete: true });
  return reply.code(202).send('Accepted: ' + ticket + ' in bench');
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
`;

function row(cells, widths) {
  return `| ${cells.map((c, i) => String(c).padEnd(widths[i])).join(' | ')} |`;
}

let exitCode = 0;
try {
  await admin(`CREATE DATABASE ${dbName}`);
  const configPath = join(dir, 'service.yml');
  writeFileSync(configPath, [
    `queue: {key_prefix: "${keyPrefix}"}`,
    'capacity: {cpu: 100000, memory: 100000Gi}',
    'projects:',
    '  bench:',
    '    tracker: platform-a',
    `    repos: [{name: bench-web, platform: platform-a, url: "${REPO}"}]`,
    '    platform_a_trigger: {pipeline_from_label: {bug: code}}',
  ].join('\n'));
  const serviceEnv = {
    SERVICE_CONFIG: configPath, SERVICE_DATA_DIR: dir, DATABASE_URL: dbUrl.toString(), KVSTORE_URL: REDIS_URL,
    PLATFORM_A_WEBHOOK_SECRET: SECRET, LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info', HOST: '127.0.0.1',
  };
  execFileSync(NODE, ['dist/cli/main.js', 'migrate'], { cwd: ROOT, env: { PATH: process.env.PATH, ...serviceEnv }, stdio: 'ignore' });
  for (const name of ['poller', 'housekeeping', 'capacity_queue']) {
    await redis.set(`${keyPrefix}leader:${name}`, 'bench-held-lease', 'PX', 3_600_000);
  }

  // --- the service (built) ---
  const servicePort = await freePort();
  const nodeOptions = PROFILE_DIR
    ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, '--import', 'data:text/javascript,process.stdin.resume();process.stdin.on("end",()=>process.exit(0))']
    : [];
  // The server exactly as `npm start` runs it.
  const service = start([...nodeOptions, '--max-semi-space-size=4', 'dist/main.js'], { ...serviceEnv, PORT: String(servicePort) }, 'service.log');
  const serviceUrl = `http://127.0.0.1:${servicePort}`;
  await waitForHttp(`${serviceUrl}/health`, service, 'dist/main.js');
  // Wait until the store is up (a claim before that answers 503).
  for (let i = 0; ; i++) {
    const health = JSON.parse(await waitForHttp(`${serviceUrl}/health`, service, 'dist/main.js'));
    const store = (health.subsystems ?? []).find((s) => s.name === 'redis');
    if (!store || store.state === 'up') break;
    if (i > 100) throw new Error(`store not up: ${JSON.stringify(store)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const serviceCounter = { next: 1_000_000 };
  console.log(`service: dist/main.js on ${serviceUrl} (database ${dbName}, key prefix ${keyPrefix})`);
  const serviceResult = await measure('pipeline-service (dist/main.js)', serviceUrl, '/webhook/platform-a', serviceCounter, service.pid);
  await stop(service);

  // Every 202 is one claim: a run row and a queued request each.
  const check = new pg.Client({ connectionString: dbUrl.toString() });
  await check.connect();
  const { rows } = await check.query("SELECT count(*)::int AS runs, count(*) FILTER (WHERE state = 'queued')::int AS queued FROM runs");
  await check.end();
  const queue = new Queue('pipeline-requests', { connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }), prefix: `${keyPrefix}bull` });
  const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'completed', 'failed');
  await queue.close();
  const queuedJobs = Object.values(counts).reduce((sum, n) => sum + n, 0);

  // --- the baseline: the inline script, run from the project root so fastify and ioredis resolve ---
  const baselinePort = await freePort();
  const baseline = start(['--input-type=module', '-e', `process.stdin.resume();process.stdin.on("end",()=>process.exit(0));${BASELINE}`], { PORT: String(baselinePort), KVSTORE_URL: REDIS_URL, KEY_PREFIX: keyPrefix, SECRET }, 'baseline.log');
  const baselineUrl = `http://127.0.0.1:${baselinePort}`;
  await waitForHttp(`${baselineUrl}/health`, baseline, 'baseline');
  const baselineResult = await measure('baseline (Fastify + Redis SET NX)', baselineUrl, '/webhook/platform-a', { next: 1_000_000 }, baseline.pid);
  await stop(baseline);

  // --- the minimal durable claim baseline (same database, same Redis) ---
  const durablePort = await freePort();
  const durable = start(['--input-type=module', '-e', `process.stdin.resume();process.stdin.on("end",()=>process.exit(0));${DURABLE_BASELINE}`],
    { PORT: String(durablePort), KVSTORE_URL: REDIS_URL, KEY_PREFIX: keyPrefix, SECRET, DATABASE_URL: dbUrl.toString() }, 'durable.log');
  const durableUrl = `http://127.0.0.1:${durablePort}`;
  await waitForHttp(`${durableUrl}/health`, durable, 'durable baseline');
  const durableResult = await measure('minimal durable claim (baseline)', durableUrl, '/webhook/platform-a', { next: 1_000_000 }, durable.pid);
  await stop(durable);

  // --- the leak check: resident memory of the server over BENCH_LEAK_DELIVERIES deliveries ---
  const leak = LEAK_DELIVERIES > 0 ? await leakCheck(serviceEnv) : null;

  const widths = [34, 12, 14, 14, 10, 22];
  console.log('');
  console.log(`Signed GitHub deliveries, one distinct ticket each. After a ${WARMUP_SECONDS} s warm-up: latency at a paced ${RATE} req/s (open loop, one request every ${(1000 / RATE).toFixed(1)} ms, timed from its scheduled send) for ${PACED_SECONDS} s, then sustained: ${CONNECTIONS} connections for ${SECONDS} s.`);
  console.log(row(['server', 'claims/s', `p50 @${RATE}/s`, `p99 @${RATE}/s`, 'errors', 'answers other than 202'], widths));
  console.log(row(widths.map((w) => '-'.repeat(w)), widths));
  for (const r of [serviceResult, durableResult, baselineResult]) {
    console.log(row([r.name, r.claims.toFixed(0), `${r.paced.p50.toFixed(1)} ms`, `${r.paced.p99.toFixed(1)} ms`, r.errors, r.notClaimed], widths));
  }
  console.log('');
  console.log('CPU per claim in the sustained phase (ms; the server process, Redis, the PostgreSQL backends of the bench database):');
  for (const r of [serviceResult, durableResult, baselineResult]) {
    const { server, redis: kv, database } = r.cpu;
    console.log(`  ${r.name.padEnd(34)} server ${server.toFixed(3)}, Redis ${kv.toFixed(3)}, PostgreSQL ${database.toFixed(3)}, sum ${(server + kv + database).toFixed(3)}`);
  }
  console.log('');
  console.log(`paced phase: service ${serviceResult.paced.samples} answers, max ${serviceResult.paced.max.toFixed(1)} ms, ${serviceResult.paced.lateSends} sends late by more than one interval; baseline max ${baselineResult.paced.max.toFixed(1)} ms`);
  console.log(`service under sustained load: mean latency ${serviceResult.sustainedLatency.mean.toFixed(1)} ms, p99 ${serviceResult.sustainedLatency.p99} ms`);
  console.log(`service database after the run: ${rows[0].runs} runs (${rows[0].queued} queued) and ${queuedJobs} jobs on the queue; ${serviceResult.claimed202} answers 202 were read (all phases)`);
  // autocannon stops each phase with requests in flight (at most one per connection): those are
  // claimed by the server but their 202 is never read.
  const inFlight = CONNECTIONS * 2 + 10;
  const consistent = rows[0].runs === queuedJobs && rows[0].runs >= serviceResult.claimed202 && rows[0].runs - serviceResult.claimed202 <= inFlight;
  console.log(consistent
    ? `consistency: one run and one queued request per claim; ${rows[0].runs - serviceResult.claimed202} claims were in flight when a phase ended (≤ ${inFlight} connections)`
    : PROFILE_DIR
      // Profiling stops the server with process.exit (no graceful shutdown): a claim whose rows
      // were committed but whose queue add had not run yet is left to the reconciler's next pass.
      ? `consistency: ${rows[0].runs - queuedJobs} run(s) without their queued request: the profiled server exits without draining (the reconciler queues them on its next start)`
      : 'consistency: MISMATCH between runs, queued requests and 202 answers');
  const ratio = serviceResult.claims / durableResult.claims;
  const claimsOk = ratio >= TARGET_CLAIMS_RATIO;
  const p99Ok = serviceResult.paced.p99 <= TARGET_P99_MS;
  console.log(`ratios (same run): service/minimal durable claim ${ratio.toFixed(2)}×, service/bare SET NX ${(serviceResult.claims / baselineResult.claims).toFixed(2)}×`);
  console.log(`targets: claims/s ≥ ${TARGET_CLAIMS_RATIO}× the minimal durable claim → ${claimsOk ? 'met' : 'NOT met'} (${serviceResult.claims.toFixed(0)} vs ${durableResult.claims.toFixed(0)}, ${ratio.toFixed(2)}×); p99 ≤ ${TARGET_P99_MS} ms at ${RATE} req/s → ${p99Ok ? 'met' : 'NOT met'} (${serviceResult.paced.p99.toFixed(1)} ms)`);
  if (leak) {
    console.log(`leak check: ${leak.delivered} deliveries (distinct tickets, ${LEAK_CONNECTIONS} connections) in ${leak.seconds.toFixed(0)} s; server RSS ${leak.points.map((p) => `${p.at}: ${p.mb.toFixed(1)} MB`).join(', ')}`);
    console.log(`leak check: RSS slope over the second half ${leak.slopeMbPer10k.toFixed(2)} MB per 10,000 deliveries (after the warm-up tenth → end ${(leak.points.at(-1).mb - leak.points[1].mb).toFixed(1)} MB) → ${Math.abs(leak.slopeMbPer10k) <= LEAK_SLOPE_LIMIT ? 'no growth' : 'GROWING'} (limit ±${LEAK_SLOPE_LIMIT} MB/10k)`);
  }
  if (process.env.BENCH_KEEP_LOGS) console.log(`logs: ${dir}/service.log, ${dir}/baseline.log`);
} catch (error) {
  console.error(`bench failed: ${error.stack ?? error}`);
  exitCode = 1;
} finally {
  for (const child of children) await stop(child).catch(() => undefined);
  await deletePrefixKeys().catch(() => undefined);
  redis.disconnect();
  await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
  if (!process.env.BENCH_KEEP_LOGS) rmSync(dir, { recursive: true, force: true });
}
process.exit(exitCode);
