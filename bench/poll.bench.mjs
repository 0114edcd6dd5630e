// npm run bench:poll — what the poller costs a tracker: requests per poll cycle and cycle time for
// BENCH_POLL_TICKETS (10,000) open tickets of which BENCH_POLL_TRIGGERING (50) carry a trigger (four
// in five the trigger status — on GitHub and GitLab a status label —, the others the mapped label or
// tag `lint-me`), on each tracker stand-in of BENCH_POLL_TRACKERS (github,gitlab,azure-devops,jira;
// test/stand-ins, compiled into .bench-build/), polled by the BUILT server (dist/, built when missing
// or older than src/) booted in this process on a fresh migrated database (DATABASE_ADMIN_URL) and
// the machine's Redis (BENCH_KVSTORE_URL, default redis://127.0.0.1:6379/0, under a key prefix of
// its own). The server runs with the test-only polling interval of 2 s (its configuration cannot go
// under 10 s) so that BENCH_POLL_CYCLES (5) steady-state cycles take seconds. Per tracker, in the
// same run:
//
//   baseline     every open ticket, unfiltered: the tracker client's listTickets() with no query
//                (what a poller without trigger filter or cursor would read)
//   first sweep  the first cycle on a fresh database: a full sweep that claims the 50 tickets
//   full sweep   the first cycle of a new lease holder once the 50 have run (Done two days ago,
//                unchanged since: the projection's catch-up leaves them alone)
//   steady       cycles with the cursor while nothing changes (p50 and max)
//   one change   the steady cycle after one more ticket was moved into the trigger status
//
// Requests are those the stand-in received from the poller (its User-Agent) during the cycle;
// cycle time is the server's own (cursor read, tracker reads, judging, claims, cursor write).
// Target: a steady-state cycle makes at most 3 requests per project. Prints figures; exits 0 when
// they were taken (targets met or not), 1 when the bench itself failed. Drops what it made.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { stringify } from 'yaml';
import { ADMIN_URL, admin, cleanEnv } from './bench-support.mjs';
import { importTestSupport } from './test-support.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TICKETS = Number(process.env.BENCH_POLL_TICKETS ?? 10_000);
const TRIGGERING = Number(process.env.BENCH_POLL_TRIGGERING ?? 50);
const CYCLES = Number(process.env.BENCH_POLL_CYCLES ?? 5);
const TRACKERS = (process.env.BENCH_POLL_TRACKERS ?? 'github,gitlab,azure-devops,jira').split(',');
const REDIS_URL = process.env.BENCH_KVSTORE_URL ?? 'redis://127.0.0.1:6379/0';
const INTERVAL_MS = 2000;
const TARGET_STEADY_REQUESTS = 3;
const MAPPED = 'lint-me';
const DAY_MS = 24 * 60 * 60_000;

const newest = (dir) => Math.max(...readdirSync(dir, { recursive: true }).map((f) => statSync(join(dir, String(f))).mtimeMs));
const entry = join(ROOT, 'dist/polling/poller.service.js');
if (!existsSync(entry) || statSync(entry).mtimeMs < newest(join(ROOT, 'src'))) {
  console.log('building dist/ …');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
}
await import('reflect-metadata');
const { createServer } = await import(join(ROOT, 'dist/server.js'));
const { readEnvironment } = await import(join(ROOT, 'dist/config/environment.js'));
const { ConfigService } = await import(join(ROOT, 'dist/config/config.service.js'));
const { PollerService } = await import(join(ROOT, 'dist/polling/poller.service.js'));
const { projectTrackerOf } = await import(join(ROOT, 'dist/tickets/label-projection/project-tracker.factory.js'));
const { DEFAULT_LABEL_PROJECTION_OPTIONS } = await import(join(ROOT, 'dist/tickets/label-projection/label-projection.options.js'));
const { GitHubStandIn } = await importTestSupport('test/stand-ins/github-stand-in.js');
const { GitLabStandIn } = await importTestSupport('test/stand-ins/gitlab-stand-in.js');
const { AzureDevOpsStandIn } = await importTestSupport('test/stand-ins/azure-devops-stand-in.js');
const { JiraStandIn } = await importTestSupport('test/stand-ins/jira-stand-in.js');

/** Ticket numbers that carry a trigger, spread evenly; every fifth by the mapped label. */
const triggering = Array.from({ length: TRIGGERING }, (_, i) => Math.floor(((i + 0.5) * TICKETS) / TRIGGERING) + 1);
const triggerOf = new Map(triggering.map((n, i) => [n, i % 5 === 4 ? 'mapped' : 'status']));
/** A ticket that carries no trigger, for the one change. */
const untouched = Array.from({ length: TICKETS }, (_, i) => i + 1).find((n) => !triggerOf.has(n));

/**
 * Each tracker as the bench drives it: its stand-in, the project block, and how a ticket is
 * seeded (`how`: its trigger or none; `done`: it carries `service:done`, as a finished run leaves it).
 */
const KINDS = {
  github: {
    start: () => new GitHubStandIn('ghp_bench_poll').start(),
    id: String,
    project: (s) => ({ tracker: 'platform-a', repos: [{ name: 'shop-web', platform: 'platform-a', url: `${s.url}/acme/shop-web`, api_url: s.apiUrl, auth_secret: 'ghp_bench_poll' }],
      platform_a_trigger: trigger('ready-for-agent') }),
    seed: (s, n, how, done) => s.addIssue(n, labels(how, 'ready-for-agent', n, done)),
    trigger: (s, n) => s.addLabel(n, 'ready-for-agent'),
  },
  gitlab: {
    start: () => new GitLabStandIn('glpat-bench-poll').start(),
    id: String,
    project: (s) => ({ tracker: 'platform-b', repos: [{ name: 'billing', platform: 'platform-b', url: `${s.url}/fin/billing`, api_url: s.apiUrl, auth_secret: 'glpat-bench-poll' }],
      platform_b_trigger: trigger('ready-for-agent') }),
    seed: (s, n, how, done) => s.addIssue(n, labels(how, 'ready-for-agent', n, done)),
    trigger: (s, n) => s.addLabel(n, 'ready-for-agent'),
  },
  'azure-devops': {
    start: () => new AzureDevOpsStandIn('ado-bench-poll').start(),
    id: String,
    project: (s) => ({ tracker: 'platform-c', platform_c_trigger: { ...trigger('Ready for Agent'), organization_url: s.organizationUrl, team_project: 'Shop', credentials: 'ado-bench-poll' } }),
    seed: (s, n, how, done) => s.addWorkItem(n, how === 'status' ? 'Ready for Agent' : 'Active', labels(how === 'mapped' ? how : null, null, n, done)),
    trigger: (s, n) => s.setState(n, 'Ready for Agent'),
  },
  jira: {
    start: () => new JiraStandIn('bot@acme.example', 'jira-bench-poll').start(),
    id: (n) => `BILL-${n}`,
    project: (s) => ({ tracker: 'platform-d', platform_d_trigger: { ...trigger('Ready for Agent'), site_url: s.siteUrl, project_key: 'BILL', credentials: 'bot@acme.example:jira-bench-poll' } }),
    seed: (s, n, how, done) => s.addIssue(`BILL-${n}`, how === 'status' ? 'Ready for Agent' : 'In Progress', labels(how === 'mapped' ? how : null, null, n, done)),
    trigger: (s, n) => s.transitionIssue(`BILL-${n}`, 'Ready for Agent'),
  },
};

/** No done_status: a finished run leaves its trigger on the ticket, so the 50 keep showing in every full sweep. */
function trigger(ready) {
  return { trigger_statuses: [ready], pipeline_from_label: { [MAPPED]: 'instant' }, default_pipeline: 'instant', polling: { enabled: true, interval_seconds: 10 } };
}

function labels(how, statusLabel, n, done) {
  const out = n % 3 === 0 ? ['bug'] : [];
  if (how === 'status' && statusLabel) out.push(statusLabel);
  if (how === 'mapped') out.push(MAPPED);
  if (done) out.push('service:done');
  return out;
}

async function seededStandIn(kind, done) {
  const standIn = await kind.start();
  // Done tickets ran two days ago: their tracker times come before their runs.
  if (done) standIn.clock.set(new Date(Date.now() - 3 * DAY_MS));
  for (let n = 1; n <= TICKETS; n++) kind.seed(standIn, n, triggerOf.get(n) ?? null, done && triggerOf.has(n));
  standIn.clock.set(new Date());
  return standIn;
}

/** A fresh database, migrated by the server's own command. */
async function freshDatabase() {
  const name = `bench_poll_${randomBytes(4).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  execFileSync(process.execPath, [join(ROOT, 'dist/cli/main.js'), 'migrate'], { cwd: ROOT, env: cleanEnv({ DATABASE_URL: url.toString(), LOG_LEVEL: 'warn' }), stdio: 'ignore' });
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** The 50 as the service would hold them two days after their runs succeeded. */
async function seedDone(databaseUrl, kind, platform) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    await pool.query(`WITH r AS (
        INSERT INTO runs (id, platform, project, ticket, pipeline, state, created_at, started_at, finished_at)
        SELECT gen_random_uuid(), $2, 'shop', t, 'instant', 'succeeded', now() - interval '2 days', now() - interval '2 days', now() - interval '2 days'
        FROM unnest($1::text[]) AS t RETURNING id, ticket)
      INSERT INTO tickets (platform, project, ticket, state, pipeline, run_id, created_at, updated_at)
      SELECT $2, 'shop', ticket, 'done', 'instant', id, now() - interval '2 days', now() - interval '2 days' FROM r`,
    [triggering.map((n) => kind.id(n)), platform]);
  } finally {
    await pool.end();
  }
}

/** The server polling `standIn` on `databaseUrl`. */
async function bootServer(kind, standIn, databaseUrl, dir, keyPrefix) {
  writeFileSync(join(dir, 'service.yml'), stringify({
    queue: { key_prefix: keyPrefix, redis_retry_interval_seconds: 1 },
    pipelines: { instant: { commands: ['true'], timeout_seconds: 60 } },
    sandbox: { backend: 'in-process', cpu: 1, memory: '1Gi' },
    projects: { shop: kind.project(standIn) },
  }));
  const env = readEnvironment({ PATH: process.env.PATH, SERVICE_CONFIG: join(dir, 'service.yml'), SERVICE_DATA_DIR: dir, DATABASE_URL: databaseUrl, KVSTORE_URL: REDIS_URL, LOG_LEVEL: 'error', PORT: '0' });
  const app = await createServer(env, { polling: { intervalMs: INTERVAL_MS } });
  await app.init();
  return { app, poller: app.get(PollerService), project: app.get(ConfigService).config.projects.shop };
}

/** The next cycle report started after `after` (epoch ms). */
async function nextCycle(poller, after, ms = 180_000) {
  const until = Date.now() + ms;
  for (;;) {
    const report = poller.lastCycle('shop');
    if (report && report.startedAt.getTime() > after) return report;
    if (Date.now() > until) throw new Error('no poll cycle came');
    await sleep(20);
  }
}

/** Requests the poller sent during the cycle. */
const requestsOf = (standIn, report) => standIn.requests.filter((r) => String(r.headers['user-agent'] ?? '').startsWith('pipeline-service poller (')
  && r.at >= report.startedAt.getTime() - 5 && r.at <= report.startedAt.getTime() + report.ms + 5).length;

async function baseline(standIn, project) {
  const tracker = projectTrackerOf(project, DEFAULT_LABEL_PROJECTION_OPTIONS);
  const before = standIn.requests.length;
  const started = performance.now();
  const tickets = await tracker.client.listTickets();
  return { requests: standIn.requests.length - before, ms: performance.now() - started, tickets: tickets.length };
}

const p50 = (values) => [...values].sort((a, b) => a - b)[Math.ceil(values.length / 2) - 1];
const row = (label, requests, ms, extra = '') => console.log(`  ${label.padEnd(50)} ${String(requests).padStart(8)} ${ms.toFixed(1).padStart(10)}  ${extra}`);
const redis = new Redis(REDIS_URL);
const dir = mkdtempSync(join(tmpdir(), 'bench-poll-'));
const cleanups = [];
const verdicts = [];
let failed = false;

async function benchTracker(name) {
  const kind = KINDS[name];
  if (!kind) throw new Error(`unknown tracker ${name} (BENCH_POLL_TRACKERS: ${Object.keys(KINDS).join(',')})`);
  console.log(`\n${name}: ${TICKETS} open tickets, ${TRIGGERING} triggering (${triggering.filter((n) => triggerOf.get(n) === 'status').length} by the trigger status, the rest by ${MAPPED})`);
  console.log(`  ${''.padEnd(50)} ${'requests'.padStart(8)} ${'cycle ms'.padStart(10)}`);

  // Phase 1: a fresh database; the first cycle sweeps in full and claims the triggering tickets.
  const first = { standIn: await seededStandIn(kind, false), db: await freshDatabase(), prefix: `bench-poll-${randomBytes(4).toString('hex')}:` };
  cleanups.push(() => first.standIn.stop(), () => first.db.drop(), () => deleteKeys(first.prefix));
  const one = await bootServer(kind, first.standIn, first.db.url, dir, first.prefix);
  const base = await baseline(first.standIn, one.project);
  row(`baseline: every open ticket (${base.tickets})`, base.requests, base.ms, 'listTickets(), no query');
  const sweep = await nextCycle(one.poller, 0);
  row('first sweep (fresh database)', requestsOf(first.standIn, sweep), sweep.ms, `${sweep.polled} polled, ${sweep.claimed} claimed`);
  await one.app.close();

  // Phase 2: the triggering tickets ran two days ago: a new lease holder's full sweep, then steady cycles.
  const second = { standIn: await seededStandIn(kind, true), db: await freshDatabase(), prefix: `bench-poll-${randomBytes(4).toString('hex')}:` };
  cleanups.push(() => second.standIn.stop(), () => second.db.drop(), () => deleteKeys(second.prefix));
  const platform = kind.project(second.standIn).tracker;
  await seedDone(second.db.url, kind, platform);
  const two = await bootServer(kind, second.standIn, second.db.url, dir, second.prefix);
  const full = await nextCycle(two.poller, 0);
  row('full sweep (new leader, all Done)', requestsOf(second.standIn, full), full.ms, `${full.polled} polled, ${full.claimed} claimed`);
  const steady = [];
  let last = full;
  for (let i = 0; i < CYCLES; i++) {
    last = await nextCycle(two.poller, last.startedAt.getTime());
    steady.push({ requests: requestsOf(second.standIn, last), ms: last.ms });
  }
  const worst = Math.max(...steady.map((s) => s.requests));
  const met = worst <= TARGET_STEADY_REQUESTS;
  verdicts.push(`${name} ${met ? 'met' : 'NOT met'} (${worst})`);
  row(`steady, nothing changed (p50 of ${CYCLES})`, p50(steady.map((s) => s.requests)), p50(steady.map((s) => s.ms)),
    `max ${worst} request(s), ${Math.max(...steady.map((s) => s.ms)).toFixed(1)} ms; target ≤ ${TARGET_STEADY_REQUESTS}: ${met ? 'met' : 'NOT met'}`);
  kind.trigger(second.standIn, untouched);
  const changed = await nextCycle(two.poller, last.startedAt.getTime());
  row('steady, one ticket moved into the trigger status', requestsOf(second.standIn, changed), changed.ms, `${changed.polled} polled, ${changed.claimed} claimed`);
  await two.app.close();
}

try {
  console.log(`poll interval ${INTERVAL_MS / 1000} s (test-only); requests = what the stand-in received from the poller during the cycle`);
  for (const name of TRACKERS) await benchTracker(name);
  console.log(`\nsteady-state target (≤ ${TARGET_STEADY_REQUESTS} requests per project per cycle): ${verdicts.join(', ')}`);
} catch (error) {
  failed = true;
  console.error(`bench failed: ${error.stack ?? error}`);
} finally {
  for (const cleanup of cleanups.reverse()) await Promise.resolve().then(cleanup).catch(() => undefined);
  redis.disconnect();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

async function deleteKeys(prefix) {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}
