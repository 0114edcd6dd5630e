// npm run bench:e2e — a whole `code` run, from a signed GitHub delivery to the pull request on the
// GitHub stand-in, through the real server (AppModule, PostgreSQL, Redis, the job queue), on the
// in-process backend and on the container engine (image pipeline-service-test:latest; "skipped:
// <reason>" without an engine). The server is the tests' PublishServer, compiled with src/ into
// .bench-build/ by tsconfig.bench.json (the same tsc output as dist/; rebuilt when a source is newer). The model stand-in answers instantly: one scripted edit, then
// `finish`; the repository's contexts run commands that do nothing (`true`). The repository is
// generated once (BENCH_FILES 10,000 files of ~BENCH_FILE_BYTES 5,000 bytes, BENCH_COMMITS 2,000
// commits) and cached in $TMPDIR/pipeline-service-bench-cache, keyed by its size.
//
// Per backend: one cold run (fresh data directory: no mirror), then BENCH_WARM_RUNS (3) warm runs
// (mirror exists), each on a ticket of its own; the warm figures are medians. Phases come from the
// run's own records: the spans (delivery, claim, run, steps; an in-memory exporter as in the
// tracing tests), the run's events (timestamps of sandbox, workspace, step and publish events)
// and the stand-in's recorded API requests (pull request, comment, labels).
//
// Baseline, same run: the unavoidable work, done directly by the bench — the same git transfers
// with plain git (a mirror clone (cold) or fetch (warm) over HTTP, `git archive | tar -x` of the
// tree, a one-file commit by plumbing, a push to a new branch) plus a replay of the run's host API
// requests (the same methods, paths and bodies, one after another). Targets (warm): total ≤ 1.5×
// the unavoidable work; ≤ 3 s in-process and ≤ 5 s on the container engine. Prints figures only.
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { generateRepository, gitEnv } from './generated-repository.mjs';
import { importTestSupport } from './test-support.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FILES = Number(process.env.BENCH_FILES ?? 10_000);
const COMMITS = Number(process.env.BENCH_COMMITS ?? 2_000);
const FILE_BYTES = Number(process.env.BENCH_FILE_BYTES ?? 5_000);
const WARM_RUNS = Number(process.env.BENCH_WARM_RUNS ?? 3);
const BACKENDS = (process.env.BENCH_BACKENDS ?? 'in-process,container-engine').split(',');
const TARGET_RATIO = 1.5;
const TARGET_MS = { 'in-process': 3_000, 'container-engine': 5_000 };
const TOKEN = 'ghp_bench0123456789abcdef';
const run = promisify(execFile);
process.env.TEST_LOG_LEVEL ??= 'error'; // the servers' shutdown warnings are noise here

const { startInMemoryTracing } = await importTestSupport('test/tracing/support/in-memory-tracing.js');
const { PublishServer } = await importTestSupport('test/workspaces/support/publish-server.js');
const { startCodeHost } = await importTestSupport('test/workspaces/support/code-hosts.js');
const { GIT_IDENTITY } = await importTestSupport('test/workspaces/support/publish-config.js');
const { ModelStandIn } = await importTestSupport('test/stand-ins/model-stand-in.js');
const { githubLabeled, githubWire } = await importTestSupport('test/webhooks/support/deliveries.js');
const { SECRETS, sendWire } = await importTestSupport('test/webhooks/support/webhook-harness.js');
const { ensureDockerEngine, ensureSandboxImage, TEST_IMAGE } = await importTestSupport('test/support/sandbox-image.js');

const CONTEXT_YAML = ['name: default', 'path: .', 'description: the bench repository', 'setup:', '  - "true"', 'build:', '  - "true"', 'test:', '  - "true"', ''].join('\n');
const EDITED = 'pkg01/mod0/file0001.txt';

// ---------------------------------------------------------------------------------------------
// The repository, generated once per size.

async function cachedRepository() {
  const cache = join(tmpdir(), 'pipeline-service-bench-cache');
  const path = join(cache, `e2e-v2-${FILES}f-${COMMITS}c-${FILE_BYTES}b.git`);
  if (existsSync(join(path, 'bench-ready'))) return path;
  mkdirSync(cache, { recursive: true });
  const building = `${path}.tmp-${process.pid}`;
  const started = performance.now();
  await generateRepository(building, { files: FILES, commits: COMMITS, fileBytes: FILE_BYTES });
  // The contexts, committed on top by plumbing (no checkout of the whole tree).
  const env = gitEnv({ GIT_DIR: building, GIT_INDEX_FILE: join(building, 'bench-index'), GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@example.test', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@example.test' });
  const g = (args, input) => execFileSync('git', args, { env, input }).toString().trim();
  g(['read-tree', 'main']);
  for (const [file, text] of Object.entries({ '.service/contexts/default/context.yaml': CONTEXT_YAML, '.service/contexts/default/principles.md': '# Principles\n\nKeep it short.\n', 'README.md': '# bench\n' })) {
    g(['update-index', '--add', '--cacheinfo', `100644,${g(['hash-object', '-w', '--stdin'], text)},${file}`]);
  }
  const commit = g(['commit-tree', g(['write-tree']), '-p', 'main', '-m', 'Add the contexts']);
  g(['update-ref', 'refs/heads/main', commit]);
  rmSync(join(building, 'bench-index'));
  execFileSync('git', ['repack', '-a', '-d', '-q'], { env: gitEnv({ GIT_DIR: building }) });
  execFileSync('touch', [join(building, 'bench-ready')]);
  rmSync(path, { recursive: true, force: true });
  renameSync(building, path);
  console.log(`repository generated in ${((performance.now() - started) / 1000).toFixed(1)} s (cached at ${path})`);
  return path;
}

// ---------------------------------------------------------------------------------------------
// One run, timed from the delivery to the last host request, its phases from the run's records.

const endOf = (span) => span.endTime[0] * 1000 + span.endTime[1] / 1e6;
const startOf = (span) => span.startTime[0] * 1000 + span.startTime[1] / 1e6;

async function codeRun(ctx, ticket) {
  const { host, server, model, tracing } = ctx;
  const marker = `BENCH-TICKET-${ticket}-${Date.now()}`;
  host.standIn.addIssue(Number(ticket), ['ready-for-agent'], { title: `Edit one file ${marker}`, body: 'Append a line to one file.' });
  model.script({
    match: marker,
    turns: [
      { toolCalls: [{ name: 'write_file', input: { path: EDITED, content: `edited for ticket ${ticket}\n` } }] },
      { toolCalls: [{ name: 'finish', input: { summary: `Edited ${EDITED}.` } }] },
    ],
  });
  const requestsBefore = host.standIn.requests.length;
  const payload = githubLabeled(Number(ticket), { repoUrl: host.repoEntry().url, label: 'ready-for-agent' });
  const t0 = Date.now();
  const reply = await sendWire(server.app, githubWire('issues', payload));
  if (reply.status !== 202) throw new Error(`delivery answered ${reply.status}: ${reply.body}`);
  // This delivery's claim: the spans of earlier servers in this process stay in the exporter.
  const claim = await until(() => tracing.spans().find((s) => s.name === 'ticket.claim' && s.attributes['pipeline_service.ticket'] === ticket && startOf(s) >= t0 - 1), 'the claim');
  const runId = String(claim.attributes['pipeline_service.run_id']);
  const outcome = await server.finished(runId, 900_000);
  if (outcome.state !== 'succeeded') throw new Error(`run ${runId} ${outcome.state}: ${outcome.error}\n${(await server.events(runId)).map((e) => e.text).join('\n')}`);
  // The run's end is recorded before the ticket's last writes (comment, labels) may land: wait for them.
  await until(() => (host.comments(ticket).length > 0 && host.labels(ticket).includes('done') ? true : undefined), 'the comment and done label');
  const requests = host.standIn.requests.slice(requestsBefore).filter((r) => !/\/(info\/refs|git-upload-pack|git-receive-pack)$/.test(r.path));
  const tEnd = Math.max(...requests.map((r) => r.at));
  const { rows: events } = await server.db.query('SELECT at, kind, text FROM run_events WHERE run_id = $1 ORDER BY seq', [runId]);
  const spans = tracing.spans().filter((s) => s.attributes['pipeline_service.run_id'] === runId || s.spanContext().traceId === claim.spanContext().traceId);
  return { runId, t0, tEnd, total: tEnd - t0, claim, spans, events: events.map((e) => ({ at: e.at.getTime(), kind: e.kind, text: e.text })), requests };
}

/**
 * The phases of a run, each [name, ms]: the run's marks (span ends, event times) in time order,
 * each phase the time from the mark before it.
 */
function phasesOf(r) {
  const span = (name) => r.spans.find((s) => s.name === name);
  const runSpan = span('run code');
  const marks = [
    ['claim (delivery → claimed)', endOf(r.claim)],
    ['queue wait', startOf(runSpan)],
    ['mirror sync (workspace.sync)', span('workspace.sync') && endOf(span('workspace.sync'))],
    ['sandbox create', r.events.find((e) => e.kind === 'sandbox-created')?.at],
    ['workspace: tree into the sandbox', span('workspace.tree') && endOf(span('workspace.tree'))],
    ...r.spans.filter((x) => x.name.startsWith('step ')).map((x) => [x.name === 'step contexts' ? 'gate (step contexts)' : x.name, endOf(x)]),
    ['collect: tree back, staged', span('workspace.collect') && endOf(span('workspace.collect'))],
    ['secret scan', span('workspace.secret_scan') && endOf(span('workspace.secret_scan'))],
    ['commit', span('workspace.commit') && endOf(span('workspace.commit'))],
    ['push', span('workspace.push') && endOf(span('workspace.push'))],
    ['pull request', span('workspace.pull_request') && endOf(span('workspace.pull_request'))],
    ['run end (sandbox removed, ticket state)', endOf(runSpan)],
    ['ticket comment and labels', r.tEnd],
  ];
  let previous = r.t0;
  return marks.filter(([, at]) => at !== undefined).sort((a, b) => a[1] - b[1]).map(([name, at]) => {
    const ms = at - previous;
    previous = at;
    return [name, ms];
  });
}

// ---------------------------------------------------------------------------------------------
// The unavoidable work, done directly: the same git transfers and host API calls.

async function unavoidable(ctx, r, { cold, round }) {
  const { host } = ctx;
  const header = `Authorization: Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`;
  const gitIn = (args, cwd, extra = {}) => run('git', ['-c', `http.extraHeader=${header}`, ...args], { cwd, env: gitEnv({ GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@x', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@x', ...extra }), maxBuffer: 1e8 });
  const url = host.repoEntry().url;
  const mirror = join(ctx.work, 'baseline-mirror.git');
  const parts = [];
  const time = async (name, action) => {
    const started = performance.now();
    await action();
    parts.push([name, performance.now() - started]);
  };
  if (cold) {
    rmSync(mirror, { recursive: true, force: true });
    await time('git clone --mirror over HTTP', () => gitIn(['clone', '--quiet', '--mirror', url, mirror]));
  } else await time('git fetch over HTTP (nothing new)', () => gitIn(['fetch', '--quiet', 'origin'], mirror));
  const tree = join(ctx.work, `baseline-tree-${round}`);
  await time('git archive | tar -x of the tree', () => run('sh', ['-c', `mkdir "$1" && git --git-dir="$2" archive --format=tar main | tar -x -C "$1"`, 'floor', tree, mirror], { env: gitEnv() }));
  rmSync(tree, { recursive: true, force: true });
  const index = join(ctx.work, 'baseline-index');
  const branch = `baseline/${round}-${Date.now()}`;
  await time('one-file commit (plumbing)', async () => {
    const env = { GIT_DIR: mirror, GIT_INDEX_FILE: index };
    await gitIn(['read-tree', 'main'], ctx.work, env);
    const { stdout: blob } = await run('sh', ['-c', `printf 'edited\\n' | git hash-object -w --stdin`], { env: gitEnv(env) });
    await gitIn(['update-index', '--cacheinfo', `100644,${blob.trim()},${EDITED}`], ctx.work, env);
    const { stdout: treeId } = await gitIn(['write-tree'], ctx.work, env);
    const { stdout: commit } = await gitIn(['commit-tree', treeId.trim(), '-p', 'main', '-m', 'baseline'], ctx.work, env);
    await gitIn(['update-ref', `refs/heads/${branch}`, commit.trim()], ctx.work, env);
  });
  rmSync(index, { force: true });
  await time('git push of the commit to a new branch', () => gitIn(['push', '--quiet', url, `refs/heads/${branch}:refs/heads/${branch}`], mirror));
  // The run's host API requests, replayed in order (a pull request's head is the baseline's branch).
  await time(`host API requests replayed (${r.requests.length})`, async () => {
    for (const q of r.requests) {
      let body = q.body;
      if (q.method === 'POST' && /\/pulls$/.test(q.path) && body && typeof body === 'object') body = { ...body, head: branch };
      const query = q.query.toString();
      const res = await fetch(`${host.standIn.url}${q.path}${query ? `?${query}` : ''}`, {
        method: q.method,
        headers: { authorization: q.headers.authorization ?? `Bearer ${TOKEN}`, accept: 'application/vnd.github+json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      await res.arrayBuffer();
    }
  });
  return parts;
}

// ---------------------------------------------------------------------------------------------

async function until(find, what, timeoutMs = 900_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const f = (ms) => `${ms.toFixed(0).padStart(7)} ms`;

async function benchBackend(backend, repository, tracing) {
  console.log(`\n=== ${backend} ===`);
  let sandbox = { backend: 'in-process', cpu: 1, memory: '1Gi', allow_agents_in_process: true };
  if (backend === 'container-engine') {
    const unavailable = await ensureDockerEngine();
    if (unavailable) return console.log(`skipped: ${unavailable}`);
    await ensureSandboxImage();
    sandbox = { backend: 'container-engine', image: TEST_IMAGE, cpu: 1, memory: '1Gi', network: 'none' };
  }
  const work = mkdtempSync(join(tmpdir(), 'bench-e2e-'));
  const ctx = { work, tracing };
  try {
    ctx.host = await startCodeHost('platform-a', work, TOKEN, 'shop-web');
    rmSync(ctx.host.bare, { recursive: true, force: true });
    cpSync(repository, ctx.host.bare, { recursive: true });
    ctx.model = await ModelStandIn.start({ apiKey: 'sk-bench' });
    ctx.server = await PublishServer.boot({
      git: GIT_IDENTITY,
      sandbox,
      secrets: { HOOK_SECRET: SECRETS.platformA },
      webhooks: { platform_a_secret: '${HOOK_SECRET}' },
      agent: { provider: 'openai', model: 'gpt-5.1', base_url: ctx.model.baseUrl, api_key: 'sk-bench', max_steps: 20, step_timeout_seconds: 600, requests_per_minute: 60000 },
      projects: { app: { ...ctx.host.trackerConfig('done', 'code'), repos: [ctx.host.repoEntry()] } },
    });
    const results = [];
    for (let round = 0; round <= WARM_RUNS; round++) {
      const cold = round === 0;
      execFileSync('sync');
      const r = await codeRun(ctx, String(100 * (BACKENDS.indexOf(backend) + 1) + round));
      const base = await unavoidable(ctx, r, { cold, round });
      results.push({ cold, r, phases: phasesOf(r), base, baseTotal: base.reduce((s, [, ms]) => s + ms, 0) });
      console.log(`${cold ? 'cold' : 'warm'} run ${round}: total ${(r.total / 1000).toFixed(2)} s, unavoidable ${(results.at(-1).baseTotal / 1000).toFixed(2)} s`);
      if (process.env.BENCH_DUMP) for (const e of r.events) console.log(`  ${new Date(e.at).toISOString()} ${e.kind} ${e.text.split('\n')[0].slice(0, 100)}`);
    }
    const report = (label, of) => {
      console.log(`\n${label}, ms${of.length > 1 ? ` (median of ${of.length})` : ''}`);
      const names = of[0].phases.map(([name]) => name);
      for (const name of names) console.log(`  ${name.padEnd(44)} ${f(median(of.map((x) => x.phases.find(([n]) => n === name)?.[1] ?? 0)))}`);
      const total = median(of.map((x) => x.r.total));
      console.log(`  ${'total (delivery → last host request)'.padEnd(44)} ${f(total)}`);
      console.log('  unavoidable work, done directly:');
      for (const [name] of of[0].base) console.log(`    ${name.padEnd(42)} ${f(median(of.map((x) => x.base.find(([n]) => n === name)?.[1] ?? x.base.find(([n]) => n.split(' (')[0] === name.split(' (')[0])?.[1] ?? 0)))}`);
      const base = median(of.map((x) => x.baseTotal));
      console.log(`  ${'unavoidable work, sum'.padEnd(44)} ${f(base)}`);
      console.log(`  total / unavoidable = ${(total / base).toFixed(2)}`);
      return { total, base };
    };
    report('cold mirror', results.filter((x) => x.cold));
    const warm = report('warm mirror', results.filter((x) => !x.cold));
    const ratio = warm.total / warm.base;
    console.log(`\n${backend}, warm: total ${(warm.total / 1000).toFixed(2)} s (target ≤ ${TARGET_MS[backend] / 1000} s: ${warm.total <= TARGET_MS[backend] ? 'met' : 'NOT met'}), ${ratio.toFixed(2)}× the unavoidable work (target ≤ ${TARGET_RATIO}×: ${ratio <= TARGET_RATIO ? 'met' : 'NOT met'})`);
  } finally {
    await ctx.server?.close();
    await ctx.model?.close();
    await ctx.host?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

const repository = await cachedRepository();
const packBytes = readdirSync(join(repository, 'objects/pack')).reduce((sum, f) => sum + statSync(join(repository, 'objects/pack', f)).size, 0);
console.log(`repository: ${FILES} files of ~${FILE_BYTES} bytes, ${COMMITS} commits, pack ${(packBytes / 1e6).toFixed(1)} MB`);
const tracing = startInMemoryTracing();
try {
  for (const backend of BACKENDS) await benchBackend(backend, repository, tracing);
} finally {
  await tracing.stop();
}
process.exit(0);
