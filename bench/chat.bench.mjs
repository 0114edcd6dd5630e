// npm run bench:chat — chat ingress against the BUILT server (dist/main.js, built first when
// missing), started as a child process on a fresh migrated PostgreSQL database and its own Redis
// key prefix, with Slack configured against the Slack stand-in (test/stand-ins/slack-stand-in.ts,
// compiled into .bench-build/). Prints, beside the same intent sent through the REST API in the
// same run:
//   - message → first reply latency (p50/p99) of `status` (the recent runs) against GET /api/runs;
//   - message → first reply latency of a start (`ping bench#N`, a command pipeline: no model
//     anywhere) against POST /api/runs/:id/retry (the REST start of a ticket's run, also a claim);
//   - Slack Web API calls per run followed (chat.postMessage + chat.update until the run ended).
// The first reply is the moment the stand-in receives the service's chat.postMessage.
//
// BENCH_CHAT_MESSAGES (default 40) state intents, BENCH_CHAT_RUNS (default 15) starts.
// DATABASE_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres), KVSTORE_URL (default
// redis://127.0.0.1:6379/0). The database and the key prefix are removed afterwards.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { ADMIN_URL, admin, cleanEnv, freePort } from './bench-support.mjs';
import { importTestSupport } from './test-support.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MESSAGES = Number(process.env.BENCH_CHAT_MESSAGES ?? 40);
const RUNS = Number(process.env.BENCH_CHAT_RUNS ?? 15);
const REDIS_URL = process.env.KVSTORE_URL ?? 'redis://127.0.0.1:6379/0';
const CHANNEL = 'C0BENCH';
const USER = 'U0BENCHER';

if (!existsSync(join(ROOT, 'dist/main.js'))) {
  console.log('building dist/ …');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
}
const { SlackStandIn, SLACK_TEAM } = await importTestSupport('test/stand-ins/slack-stand-in.js');

const id = randomBytes(4).toString('hex');
const dbName = `bench_chat_${id}`;
const keyPrefix = `bench-chat-${id}:`;
const dir = mkdtempSync(join(tmpdir(), 'bench-chat-'));
const dbUrl = new URL(ADMIN_URL);
dbUrl.pathname = `/${dbName}`;
const redis = new Redis(REDIS_URL);
const slack = await new SlackStandIn(`xoxb-bench-${id}`, `signing-${id}`).start();
let service = null;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const fmt = (ms) => `${ms.toFixed(1)} ms`;

async function until(probe, timeoutMs, what) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(2);
  }
}

/** Sends a signed message; resolves with ms until the service's first chat.postMessage in its thread. */
async function chatLatency(serviceUrl, text) {
  const mention = slack.mention(USER, CHANNEL, text);
  const started = Date.now();
  const response = await fetch(`${serviceUrl}/chat/slack`, { method: 'POST', headers: { 'content-type': 'application/json', ...slack.sign(mention.body) }, body: mention.body });
  if (response.status !== 200) throw new Error(`chat answered ${response.status}: ${await response.text()}`);
  const post = await until(() => slack.requests.find((r) => r.path === '/api/chat.postMessage' && new URLSearchParams(String(r.body)).get('thread_ts') === mention.ts), 30_000, `the reply to "${text}"`);
  return { ms: post.at - started, ts: mention.ts };
}

async function restLatency(url, init) {
  const started = performance.now();
  const response = await fetch(url, init);
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return performance.now() - started;
}

function summary(values) {
  return `p50 ${fmt(percentile(values, 50))}, p99 ${fmt(percentile(values, 99))} (n=${values.length})`;
}

let exitCode = 0;
try {
  await admin(`CREATE DATABASE ${dbName}`);
  const configPath = join(dir, 'service.yml');
  writeFileSync(configPath, [
    `queue: {key_prefix: "${keyPrefix}"}`,
    'sandbox: {backend: in-process}',
    // A start's run fails at once (no model, nothing to clone): a run to follow, and one REST retry may start again.
    'pipelines: {ping: {commands: ["exit 3"], timeout_seconds: 60}}',
    'projects:',
    '  bench:',
    '    tracker: platform-a',
    '    repos: []',
    '    platform_a_trigger: {default_pipeline: ping}',
    'chat:',
    `  slack: {bot_token: "${slack.botToken}", signing_secret: "${slack.signingSecret}", api_url: "${slack.apiUrl}"}`,
    `  channels: {"slack:${SLACK_TEAM}/${CHANNEL}": operator}`,
  ].join('\n'));
  const serviceEnv = cleanEnv({ SERVICE_CONFIG: configPath, SERVICE_DATA_DIR: dir, DATABASE_URL: dbUrl.toString(), KVSTORE_URL: REDIS_URL, LOG_LEVEL: 'warn', HOST: '127.0.0.1' });
  execFileSync(process.execPath, ['dist/cli/main.js', 'migrate'], { cwd: ROOT, env: serviceEnv, stdio: 'ignore' });
  const port = await freePort();
  const log = createWriteStream(join(dir, 'service.log'));
  service = spawn(process.execPath, ['dist/main.js'], { cwd: ROOT, env: { ...serviceEnv, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  service.stdout.pipe(log);
  service.stderr.pipe(log);
  const serviceUrl = `http://127.0.0.1:${port}`;
  await until(async () => {
    try {
      const health = await (await fetch(`${serviceUrl}/health`)).json();
      return health.subsystems?.find((s) => s.name === 'redis')?.state === 'up' ? true : undefined;
    } catch {
      return undefined;
    }
  }, 60_000, 'the service and its store');
  console.log(`service: dist/main.js on ${serviceUrl} (database ${dbName}, key prefix ${keyPrefix}); Slack stand-in ${slack.apiUrl}`);

  // Warm-up: the first message initialises the Slack adapter (auth.test) and the connections.
  await chatLatency(serviceUrl, 'help');
  await restLatency(`${serviceUrl}/api/runs?limit=5`);

  // --- starts: chat, and the REST API's start of the same tickets (retry, a claim like any trigger) ---
  const chatStarts = [];
  const callsPerRun = [];
  const db = new pg.Client({ connectionString: dbUrl.toString() });
  db.on('error', () => undefined);
  await db.connect();
  for (let n = 1; n <= RUNS; n++) {
    const { ms, ts } = await chatLatency(serviceUrl, `ping bench#${n}`);
    chatStarts.push(ms);
    const run = await until(async () => (await db.query("SELECT id, state FROM runs WHERE ticket = $1 AND state IN ('failed', 'succeeded', 'cancelled')", [String(n)])).rows[0], 60_000, `run of #${n} to end`);
    // The one message reaches its final text (Failed …) after the run ends.
    await until(() => (slack.thread(CHANNEL, ts).some((m) => m.text.includes('Failed')) ? true : undefined), 30_000, `the message of #${n} to say Failed`);
    await sleep(1200); // a late edit would be counted too
    const posts = slack.requests.filter((r) => r.path === '/api/chat.postMessage' && new URLSearchParams(String(r.body)).get('thread_ts') === ts).length;
    const message = slack.thread(CHANNEL, ts)[0];
    const updates = slack.requests.filter((r) => r.path === '/api/chat.update' && new URLSearchParams(String(r.body)).get('ts') === message.ts).length;
    callsPerRun.push({ posts, updates, run: run.id });
  }
  const restStarts = [];
  for (const { run } of callsPerRun) restStarts.push(await restLatency(`${serviceUrl}/api/runs/${run}/retry`, { method: 'POST' }));

  // --- state: chat `status` against GET /api/runs ---
  const chatState = [];
  const restState = [];
  for (let i = 0; i < MESSAGES; i++) {
    chatState.push((await chatLatency(serviceUrl, 'status')).ms);
    restState.push(await restLatency(`${serviceUrl}/api/runs?limit=5`));
  }
  await db.end();

  const total = callsPerRun.reduce((n, c) => n + c.posts + c.updates, 0);
  console.log('\nmessage → first reply (the model excluded: a command pipeline, no free text), beside the REST API in the same run');
  console.log(`| intent | chat (Slack, signed, through the Chat SDK) | REST API |`);
  console.log(`|---|---|---|`);
  console.log(`| state (recent runs) | ${summary(chatState)} | GET /api/runs: ${summary(restState)} |`);
  console.log(`| start a pipeline on a ticket | ${summary(chatStarts)} | POST /api/runs/:id/retry: ${summary(restStarts)} |`);
  console.log(`\nSlack Web API calls per run followed: ${(total / callsPerRun.length).toFixed(2)} (chat.postMessage ${callsPerRun.map((c) => c.posts).join('/')}, chat.update ${callsPerRun.map((c) => c.updates).join('/')}) over ${callsPerRun.length} runs`);
  console.log(`Slack Web API calls in all: ${[...slack.calls.entries()].map(([m, n]) => `${m} ${n}`).join(', ')}`);
} catch (error) {
  console.error(error);
  console.error(`service log: ${join(dir, 'service.log')}`);
  exitCode = 1;
} finally {
  if (service && service.exitCode === null) {
    const gone = new Promise((resolve) => service.once('exit', resolve));
    service.kill('SIGTERM');
    await Promise.race([gone, sleep(15_000)]);
  }
  await slack.stop();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
  redis.disconnect();
  await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
  if (exitCode === 0) rmSync(dir, { recursive: true, force: true });
  process.exit(exitCode);
}
