// npm run bench:queue — claim-to-InProgress latency (p50/p99) and runs started per second with
// capacity free, for a command pipeline that exits at once (`true`), beside a baseline measured
// in the same run: a bare BullMQ queue and worker (same concurrency) whose job runs `true`. Boots the built server
// (dist/, built first when missing or older than src/runs) in-process against real PostgreSQL
// and Redis: DATABASE_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres) and
// KVSTORE_URL (default redis://127.0.0.1:6379/0). Uses a fresh database and its own key prefix,
// and removes both afterwards.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LATENCY_RUNS = Number(process.env.BENCH_LATENCY_RUNS ?? 200);
const THROUGHPUT_RUNS = Number(process.env.BENCH_THROUGHPUT_RUNS ?? 400);
const PARALLEL = Number(process.env.BENCH_PARALLEL ?? 8);
const ADMIN_URL = process.env.DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.KVSTORE_URL ?? 'redis://127.0.0.1:6379/0';
// BENCH_CAPACITY=1 configures a capacity block far larger than the load (admission by the
// capacity-queue leader) instead of none (runs admit themselves).
const BOUNDED = process.env.BENCH_CAPACITY === '1';

const built = join(ROOT, 'dist/runs/run-consumer.service.js');
if (!existsSync(built) || statSync(built).mtimeMs < statSync(join(ROOT, 'src/runs/run-consumer.service.ts')).mtimeMs) {
  console.log('building dist/ …');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
}

const { default: pg } = await import('pg');
const { Redis } = await import('ioredis');
const { readEnvironment } = await import(join(ROOT, 'dist/config/environment.js'));
const { migrate } = await import(join(ROOT, 'dist/cli/migrate.command.js'));
const { createServer } = await import(join(ROOT, 'dist/server.js'));
const { ClaimService } = await import(join(ROOT, 'dist/tickets/claim.service.js'));
const { TicketLifecycleService } = await import(join(ROOT, 'dist/tickets/ticket-lifecycle.service.js'));
const { SubsystemsService } = await import(join(ROOT, 'dist/store/subsystems.service.js'));

const id = randomBytes(4).toString('hex');
const dbName = `bench_queue_${id}`;
const keyPrefix = `bench-queue-${id}:`;
// The baseline first: it creates nothing but keys under this prefix, removed at the end.
const base = await baseline();
const dir = mkdtempSync(join(tmpdir(), 'bench-queue-'));
const admin = new pg.Client({ connectionString: ADMIN_URL });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbName}`);
const dbUrl = new URL(ADMIN_URL);
dbUrl.pathname = `/${dbName}`;
writeFileSync(join(dir, 'service.yml'), [
  `queue: {max_parallel_runs: ${PARALLEL}, key_prefix: "${keyPrefix}"}`,
  'pipelines: {instant: {commands: ["true"], timeout_seconds: 60}}',
  ...(BOUNDED ? ['capacity: {cpu: 100000, memory: 100000Gi}'] : []),
  'projects: {bench: {tracker: platform-a, repos: [{name: bench-web, platform: platform-a, url: "https://github.com/acme/bench-web"}]}}',
].join('\n'));
const env = readEnvironment({
  PATH: process.env.PATH, SERVICE_CONFIG: join(dir, 'service.yml'), SERVICE_DATA_DIR: dir,
  DATABASE_URL: dbUrl.toString(), KVSTORE_URL: REDIS_URL, LOG_LEVEL: 'error',
});
await migrate(env);
const app = await createServer(env);
await app.init();

const subsystems = app.get(SubsystemsService);
for (let i = 0; subsystems.get('queue_consumer').state !== 'up'; i++) {
  if (i > 200) throw new Error(`queue consumer not up: ${subsystems.get('queue_consumer').reason}`);
  await new Promise((r) => setTimeout(r, 100));
}

const started = new Map(); // runId -> performance.now() of Enqueued → InProgress
const waiters = new Map();
app.get(TicketLifecycleService).onTransition((t) => {
  if (t.trigger !== 'dequeue') return;
  started.set(t.runId, performance.now());
  waiters.get(t.runId)?.();
});
const claims = app.get(ClaimService);
let ticket = 0;
async function claimOne() {
  const at = performance.now();
  const outcome = await claims.claim({ platform: 'platform-a', project: 'bench', ticket: String(++ticket) }, 'instant');
  if (outcome.outcome !== 'Claimed') throw new Error(`claim failed: ${JSON.stringify(outcome)}`);
  return { runId: outcome.runId, at };
}
function inProgress(runId) {
  return started.has(runId) ? Promise.resolve() : new Promise((resolve) => waiters.set(runId, resolve));
}
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** The same two measurements against a bare BullMQ queue and worker: what the queue alone costs. */
async function baseline() {
  const { Queue, Worker } = await import('bullmq');
  const { execFile } = await import('node:child_process');
  const connection = () => new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const prefix = `${keyPrefix}baseline`;
  const queue = new Queue('baseline', { connection: connection(), prefix });
  const begun = new Map();
  const wake = new Map();
  const worker = new Worker('baseline', async (job) => {
    begun.set(job.id, performance.now());
    wake.get(job.id)?.();
    await new Promise((resolve, reject) => execFile('/bin/sh', ['-c', 'true'], (error) => (error ? reject(error) : resolve())));
  }, { connection: connection(), prefix, concurrency: PARALLEL });
  let n = 0;
  const add = async () => { const job = await queue.add('job', { n: ++n }, { jobId: `job-${n}`, removeOnComplete: true }); return job.id; };
  const begin = (jobId) => (begun.has(jobId) ? Promise.resolve() : new Promise((resolve) => wake.set(jobId, resolve)));
  for (let i = 0; i < 20; i++) await begin(await add());
  const lat = [];
  for (let i = 0; i < LATENCY_RUNS; i++) { const at = performance.now(); const jobId = await add(); await begin(jobId); lat.push(begun.get(jobId) - at); }
  lat.sort((a, b) => a - b);
  const t = performance.now();
  const ids = [];
  for (let i = 0; i < THROUGHPUT_RUNS; i++) ids.push(await add());
  await Promise.all(ids.map(begin));
  const secs = (Math.max(...ids.map((jobId) => begun.get(jobId))) - t) / 1000;
  await worker.close();
  await queue.close();
  return { lat, perSecond: THROUGHPUT_RUNS / secs };
}

// Warm-up.
for (let i = 0; i < 20; i++) { const c = await claimOne(); await inProgress(c.runId); }

// Latency: one claim at a time, claim call → ticket InProgress.
const latencies = [];
for (let i = 0; i < LATENCY_RUNS; i++) {
  const c = await claimOne();
  await inProgress(c.runId);
  latencies.push(started.get(c.runId) - c.at);
}
latencies.sort((a, b) => a - b);

// Throughput: claims as fast as they are accepted; rate of runs reaching InProgress.
const t0 = performance.now();
const pending = [];
for (let i = 0; i < THROUGHPUT_RUNS; i++) pending.push((await claimOne()).runId);
await Promise.all(pending.map(inProgress));
const seconds = (Math.max(...pending.map((r) => started.get(r))) - t0) / 1000;

console.log(`queue bench: command pipeline \`true\`, ${BOUNDED ? 'capacity block with room to spare' : 'capacity unbounded'}, max_parallel_runs ${PARALLEL}, 1 sandbox per run`);
console.log(`| series                                   | p50 start latency | p99 start latency | started per second |`);
console.log(`| ---------------------------------------- | ----------------- | ----------------- | ------------------ |`);
const row = (name, lat, perSecond) => console.log(`| ${name.padEnd(40)} | ${`${pct(lat, 50).toFixed(1)} ms`.padEnd(17)} | ${`${pct(lat, 99).toFixed(1)} ms`.padEnd(17)} | ${`${perSecond.toFixed(1)}/s`.padEnd(18)} |`);
row('pipeline-service: claim → InProgress', latencies, THROUGHPUT_RUNS / seconds);
row('baseline: bare BullMQ add → job start', base.lat.sort((a, b) => a - b), base.perSecond);
console.log(`(${LATENCY_RUNS} sequential claims for latency; ${THROUGHPUT_RUNS} claims as fast as accepted for the rate)`);

await new Promise((r) => setTimeout(r, 500));
await app.close();
await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
await admin.end();
const redis = new Redis(REDIS_URL);
let cursor = '0';
do {
  const [next, keys] = await redis.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 1000);
  cursor = next;
  if (keys.length) await redis.del(...keys);
} while (cursor !== '0');
redis.disconnect();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
