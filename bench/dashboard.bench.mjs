// npm run bench:dashboard — the dashboard in headless Chromium (Debian's /usr/bin/chromium, driven
// by playwright-core) against the BUILT server (run `npm run build` first; built when missing),
// beside a bare index.html (`bench-bare.html`, no script, no style) served by the same server in
// the same run:
//
//   shipped     JavaScript and CSS the browser fetched to show /runs, gzip -6 of each file
//               (targets ≤ 150 KB JS, ≤ 20 KB CSS); the bare page ships none
//   table       navigation start → the runs table painted with its 50 runs (a fresh browser
//               context each time: no cache), BENCH_LOADS (10) loads; target ≤ 1 s.
//               Baseline: navigation start → the bare page's load event
//   live log    a run event written to the server's run feed (the store stream the hub relays,
//               as a running step writes it) → its line painted in the open run page,
//               BENCH_EVENTS (200) events 25 ms apart; target p95 ≤ 250 ms. Baseline: the same
//               events received by a socket.io client in this process watching the same run
//               (the transport's floor)
//   flood       BENCH_FLOOD (100,000) events written as fast as the store takes them while the
//               run page follows the log: the longest main-thread task (PerformanceObserver
//               longtask) and the time until the last line is painted; target longest ≤ 200 ms.
//               Baseline: the longest task of the bare page over the same time
//
// The database is a fresh one (DATABASE_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/
// postgres) seeded with 50 runs; the store is the machine's Redis (BENCH_KVSTORE_URL, default
// redis://127.0.0.1:6379/0) under a key prefix of this run's own, deleted at the end. No sign-in
// (no authority: the dashboard then calls the API without a token). Prints figures; exits 0 when
// they were taken (targets met or not), 1 when the bench itself failed.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { chromium } from 'playwright-core';
import { io } from 'socket.io-client';
import { ADMIN_URL, admin, cleanEnv, freePort } from './bench-support.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NODE = process.execPath;
const CHROMIUM = process.env.BENCH_CHROMIUM ?? '/usr/bin/chromium';
const REDIS_URL = process.env.BENCH_KVSTORE_URL ?? 'redis://127.0.0.1:6379/0';
const LOADS = Number(process.env.BENCH_LOADS ?? 10);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 200);
const FLOOD = Number(process.env.BENCH_FLOOD ?? 100_000);
const BARE = 'bench-bare.html';
const WEB = join(ROOT, 'dist', 'web');
const LAUNCH = { executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] };

const cleanups = [];
async function cleanup() {
  while (cleanups.length > 0) await cleanups.pop()().catch(() => undefined);
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
const ms = (v) => `${Math.round(v)} ms`;
const kb = (v) => `${(v / 1024).toFixed(1)} KB`;

async function main() {
  if (!existsSync(CHROMIUM)) throw new Error(`no browser at ${CHROMIUM} (apt-get install -y chromium)`);
  if (!existsSync(join(ROOT, 'dist/main.js')) || !existsSync(join(WEB, 'index.html'))) {
    console.log('building (npm run build)…');
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  }
  writeFileSync(join(WEB, BARE), '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bare</title></head><body><h1>bare</h1></body></html>');
  cleanups.push(async () => rmSync(join(WEB, BARE), { force: true }));

  const database = `bench_dashboard_${randomBytes(4).toString('hex')}`;
  await admin(`CREATE DATABASE ${database}`);
  cleanups.push(() => admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  const databaseUrl = url.toString();
  const keyPrefix = `bench-dashboard-${randomBytes(4).toString('hex')}:`;
  const dir = mkdtempSync(join(tmpdir(), 'bench-dashboard-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'service.yml'), `queue:\n  key_prefix: "${keyPrefix}"\n`);
  const env = cleanEnv({ DATABASE_URL: databaseUrl, KVSTORE_URL: REDIS_URL, SERVICE_CONFIG: join(dir, 'service.yml'), SERVICE_DATA_DIR: dir, LOG_LEVEL: 'warn' });
  execFileSync(NODE, ['dist/cli/main.js', 'migrate'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });

  const logRun = randomUUID();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`
    INSERT INTO runs (id, platform, project, ticket, pipeline, state, created_at, started_at, finished_at)
    SELECT gen_random_uuid(), 'github', 'shop', 'T-' || i, CASE WHEN i % 3 = 0 THEN 'pr-review' ELSE 'code' END,
           (ARRAY['succeeded','failed','cancelled'])[1 + i % 3],
           now() - make_interval(mins => i * 7), now() - make_interval(mins => i * 7 - 1), now() - make_interval(mins => i * 7 - 5)
    FROM generate_series(1, 49) i`);
  await client.query(`INSERT INTO runs (id, platform, project, ticket, pipeline, state, created_at, started_at) VALUES ($1, 'github', 'shop', 'T-live', 'code', 'running', now(), now())`, [logRun]);
  await client.end();

  const port = await freePort();
  const server = spawn(NODE, ['--max-semi-space-size=4', 'dist/main.js'], { cwd: ROOT, env: { ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'ignore', 'inherit'] });
  cleanups.push(async () => {
    server.kill('SIGTERM');
    await Promise.race([new Promise((done) => server.once('exit', done)), sleep(10_000)]);
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    const ok = await fetch(`${base}/health`).then((r) => r.ok, () => false);
    if (ok) break;
    await sleep(100);
  }
  const redis = new Redis(REDIS_URL);
  cleanups.push(async () => {
    const keys = await redis.keys(`${keyPrefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });
  const feed = `${keyPrefix}feed:runs`;

  const browser = await chromium.launch(LAUNCH);
  cleanups.push(() => browser.close());

  // 1. What /runs ships.
  const shipped = { js: 0, css: 0, files: [] };
  {
    const context = await browser.newContext();
    const page = await context.newPage();
    const urls = new Set();
    page.on('response', (response) => {
      const type = response.request().resourceType();
      if (type === 'script' || type === 'stylesheet') urls.add(`${type} ${response.url()}`);
    });
    await page.goto(`${base}/runs`);
    await page.getByRole('table', { name: 'Runs' }).waitFor();
    await page.waitForLoadState('networkidle');
    for (const entry of urls) {
      const [type, href] = entry.split(' ');
      const body = Buffer.from(await (await fetch(href)).arrayBuffer());
      const gz = gzipSync(body, { level: 6 }).length;
      shipped[type === 'script' ? 'js' : 'css'] += gz;
      shipped.files.push(`${new URL(href).pathname} ${kb(gz)}`);
    }
    await context.close();
  }

  // 2. Navigation → a painted table of 50 runs, beside the bare page's load.
  const tableMs = [];
  const bareMs = [];
  for (let i = 0; i < LOADS; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/runs`, { waitUntil: 'commit' });
    const painted = await page.waitForFunction(() => new Promise((resolve) => {
      const done = () => requestAnimationFrame(() => resolve(performance.now()));
      const ready = () => document.querySelector('table[aria-label="Runs"] tbody tr[data-row]') && /Showing 50 of 50/.test(document.body.textContent ?? '');
      if (ready()) return done();
      new MutationObserver((_, observer) => { if (ready()) { observer.disconnect(); done(); } }).observe(document, { subtree: true, childList: true, characterData: true });
    }), undefined, { timeout: 20_000 });
    tableMs.push(await painted.jsonValue());
    await page.goto(`${base}/${BARE}`);
    bareMs.push(await page.evaluate(() => performance.getEntriesByType('navigation')[0].loadEventEnd));
    await context.close();
  }

  // 3. Event → painted line, beside a socket.io client in this process.
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${base}/runs/${logRun}`);
  await page.getByRole('heading', { level: 1 }).waitFor();
  await page.evaluate(() => {
    window.__painted = new Map();
    new MutationObserver((records) => {
      for (const record of records) {
        for (const node of record.addedNodes) {
          const text = node.textContent ?? '';
          for (const match of text.matchAll(/bench-marker-(\d+)/g)) {
            const n = Number(match[1]);
            if (!window.__painted.has(n)) {
              window.__painted.set(n, -1);
              requestAnimationFrame(() => window.__painted.set(n, Date.now()));
            }
          }
        }
      }
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  const floor = io(base, { path: '/hub/jobs', transports: ['websocket'] });
  cleanups.push(async () => { floor.close(); });
  const received = new Map();
  floor.on('run.event', (e) => {
    const m = /bench-marker-(\d+)/.exec(e.text);
    if (m) received.set(Number(m[1]), Date.now());
  });
  await new Promise((done) => floor.on('connect', done));
  await new Promise((done) => floor.emit('run.watch', { runId: logRun }, done));
  await sleep(1500); // the page's own watch and catch-up
  const sent = new Map();
  let seq = 0;
  for (let i = 1; i <= EVENTS; i++) {
    seq += 1;
    sent.set(i, Date.now());
    await redis.xadd(feed, '*', 'run', logRun, 'seq', String(seq), 'at', new Date().toISOString(), 'kind', 'output', 'sandbox', 'web', 'text', `bench-marker-${i} npm test: ok ${i}`);
    await sleep(25);
  }
  await sleep(2000);
  const painted = new Map(await page.evaluate(() => [...window.__painted.entries()]));
  const pageLatency = [];
  const floorLatency = [];
  for (const [i, at] of sent) {
    if ((painted.get(i) ?? -1) > 0) pageLatency.push(painted.get(i) - at);
    if (received.has(i)) floorLatency.push(received.get(i) - at);
  }

  // 4. The flood: longest task while FLOOD lines stream in, beside the bare page idle as long.
  await page.evaluate(() => {
    window.__longest = 0;
    window.__longTasks = 0;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        window.__longTasks += 1;
        window.__longest = Math.max(window.__longest, entry.duration);
      }
    }).observe({ type: 'longtask' });
  });
  const floodStart = Date.now();
  const last = EVENTS + FLOOD;
  for (let i = EVENTS + 1; i <= last; i += 1000) {
    const batch = redis.pipeline();
    for (let j = i; j < Math.min(last + 1, i + 1000); j++) {
      seq += 1;
      batch.xadd(feed, '*', 'run', logRun, 'seq', String(seq), 'at', new Date().toISOString(), 'kind', 'output', 'sandbox', 'web', 'text', `bench-marker-${j} compiling module ${j % 977} of the shop`);
    }
    await batch.exec();
  }
  const written = Date.now();
  await page.waitForFunction((n) => (window.__painted.get(n) ?? -1) > 0, last, { timeout: 120_000, polling: 250 }).catch(() => undefined);
  const lastPainted = await page.evaluate((n) => window.__painted.get(n) ?? -1, last);
  const flood = await page.evaluate(() => ({ longest: window.__longest, count: window.__longTasks }));
  const floodMs = Date.now() - floodStart;
  await page.goto(`${base}/${BARE}`);
  await page.evaluate(() => {
    window.__longest = 0;
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longest = Math.max(window.__longest, e.duration); }).observe({ type: 'longtask' });
  });
  await sleep(Math.min(floodMs, 30_000));
  const bareLongest = await page.evaluate(() => window.__longest);

  console.log('\nnpm run bench:dashboard — headless Chromium, built server, this machine\n');
  console.log('shipped to /runs (gzip)');
  console.log(`  JavaScript   ${kb(shipped.js)}   (target ≤ 150 KB)   bare page: 0 KB`);
  console.log(`  CSS          ${kb(shipped.css)}   (target ≤ 20 KB)    bare page: 0 KB`);
  for (const f of shipped.files) console.log(`    ${f}`);
  console.log(`\nnavigation → painted table of 50 runs, ${LOADS} cold loads`);
  console.log(`  dashboard    p50 ${ms(percentile(tableMs, 50))}   max ${ms(Math.max(...tableMs))}   (target ≤ 1 s)`);
  console.log(`  bare page    p50 ${ms(percentile(bareMs, 50))}   max ${ms(Math.max(...bareMs))}   (load event)`);
  console.log(`\nrun event → painted log line, ${EVENTS} events 25 ms apart`);
  console.log(`  dashboard    p50 ${ms(percentile(pageLatency, 50))}   p95 ${ms(percentile(pageLatency, 95))}   painted ${pageLatency.length}/${EVENTS}   (target p95 ≤ 250 ms)`);
  console.log(`  socket.io    p50 ${ms(percentile(floorLatency, 50))}   p95 ${ms(percentile(floorLatency, 95))}   received ${floorLatency.length}/${EVENTS}   (transport floor)`);
  console.log(`\n${FLOOD.toLocaleString('en')} lines streamed into the open run page`);
  console.log(`  written to the feed in ${ms(written - floodStart)}; last line painted ${lastPainted > 0 ? `${ms(lastPainted - floodStart)} after the first write` : 'NOT within 120 s'}`);
  console.log(`  longest main-thread task ${ms(flood.longest)} (${flood.count} tasks over 50 ms)   (target ≤ 200 ms)`);
  console.log(`  bare page idle as long: longest task ${ms(bareLongest)}`);
}

try {
  await main();
  await cleanup();
  process.exit(0);
} catch (error) {
  console.error(`bench:dashboard failed: ${error?.stack ?? error}`);
  await cleanup();
  process.exit(1);
}
