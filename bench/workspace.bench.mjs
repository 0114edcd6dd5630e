// npm run bench:workspace — the server-side git layer (dist/workspaces/git, built first when
// missing or older than src/workspaces/git) against plain git, on a generated repository of 5,000
// files, ~50 MB, 200 commits (bench/generated-repository.mjs) served over smart HTTP with Basic
// auth by the real `git http-backend` (bench/git-http-server.mjs). BENCH_RUNS rounds (5), medians:
//
//   baseline  plain `git clone` over HTTP (full checkout)
//   baseline  plain `git push` of a one-file change to a new branch
//   floor     the same tree written into a directory by `git archive | tar -x` (no network, no
//             git transfer: what any preparation of a sandbox costs at least on this disk)
//   ours      prepare, cold (empty data directory: mirror clone + archive into a sandbox)
//   ours      prepare, warm (mirror exists: refs advertisement + archive into a sandbox)
//   ours      publish of a one-file change (collect + commit + push)
//
// The sandbox is the built in-process backend when its archive methods work, else a host
// directory moved with tar-stream (bench/directory-sandbox.mjs). Target: warm prepare ≤ 0.3× the
// plain clone. Prints figures only, no assertions; removes everything it made.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import tar from 'tar-stream';
import { DirectorySandbox } from './directory-sandbox.mjs';
import { generateRepository, gitEnv } from './generated-repository.mjs';
import { startGitHttpServer } from './git-http-server.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const TARGET_WARM_RATIO = 0.3;
const USER = 'x-access-token';
const TOKEN = 'bench-token-0123456789';

const built = join(ROOT, 'dist/workspaces/git/repository-workspaces.js');
const newestSource = Math.max(...readdirSync(join(ROOT, 'src/workspaces/git')).map((f) => statSync(join(ROOT, 'src/workspaces/git', f)).mtimeMs));
if (!existsSync(built) || statSync(built).mtimeMs < newestSource) {
  console.log('building dist/ …');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
}
const { RepositoryWorkspaces } = await import(built);
const { InProcessBackend } = await import(join(ROOT, 'dist/sandbox/in-process.backend.js'));

const work = mkdtempSync(join(tmpdir(), 'bench-workspace-'));
let server = null;
const cleanup = () => rmSync(work, { recursive: true, force: true });
process.once('SIGINT', () => {
  cleanup();
  process.exit(130);
});

try {
  const bare = join(work, 'remote', 'shop-web.git');
  let started = performance.now();
  const bytes = await generateRepository(bare);
  const packBytes = readdirSync(join(bare, 'objects/pack')).reduce((sum, f) => sum + statSync(join(bare, 'objects/pack', f)).size, 0);
  console.log(`repository: 5000 files, ${(bytes / 1e6).toFixed(1)} MB tree, 200 commits, pack ${(packBytes / 1e6).toFixed(1)} MB (generated in ${((performance.now() - started) / 1000).toFixed(1)} s)`);
  server = await startGitHttpServer({ repository: bare, mountPath: '/acme/shop-web', username: USER, password: TOKEN });
  const repo = { name: 'shop-web', platform: 'platform-a', url: server.url, api_url: null, path_prefix: '', auth_secret: TOKEN };
  const source = (ticket) => ({ repo, credential: { username: USER, password: TOKEN }, workBranch: `service/${ticket}`, baseBranch: 'main' });
  const makeSandbox = await sandboxFactory();
  console.log(`sandbox: ${makeSandbox.kind}`);

  const header = `Authorization: Basic ${Buffer.from(`${USER}:${TOKEN}`).toString('base64')}`;
  // Asynchronous: the HTTP server runs in this process.
  const plainGit = (args, cwd) => promisify(execFile)('git', ['-c', `http.extraHeader=${header}`, ...args], { cwd, env: gitEnv({ GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@x', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@x' }) });
  const results = { clone: [], push: [], floor: [], cold: [], warm: [], publish: [] };
  for (let round = 0; round < RUNS; round++) {
    // Baselines: what a server without a mirror would do.
    const clone = join(work, `clone-${round}`);
    results.clone.push(await timeAsync(() => plainGit(['clone', '--quiet', server.url, clone])));
    writeFileSync(join(clone, 'pkg00/mod0/file0000.txt'), `edited in round ${round}\n`, { flag: 'a' });
    await plainGit(['commit', '--quiet', '-am', 'one file'], clone);
    results.push.push(await timeAsync(() => plainGit(['push', '--quiet', 'origin', `HEAD:refs/heads/plain-${round}`], clone)));
    rmSync(clone, { recursive: true, force: true });
    const floorDir = join(work, `floor-${round}`);
    results.floor.push(await timeAsync(() => promisify(execFile)('sh', ['-c', `mkdir "$1" && git --git-dir="$2" archive --format=tar main | tar -x -C "$1"`, 'floor', floorDir, bare], { env: gitEnv() })));
    rmSync(floorDir, { recursive: true, force: true });

    // Ours: a fresh data directory (cold), then the same one again (warm), then a publish.
    const dataDir = join(work, `data-${round}`);
    const workspaces = new RepositoryWorkspaces({ dataDir });
    const coldBox = await makeSandbox();
    results.cold.push(await timeAsync(() => workspaces.prepare(source(`cold-${round}`), coldBox)));
    await coldBox.destroy();
    const box = await makeSandbox();
    let prepared;
    results.warm.push(await timeAsync(async () => (prepared = await workspaces.prepare(source(`warm-${round}`), box))));
    writeFileSync(join(box.workdir, 'pkg01/mod0/file0001.txt'), `published in round ${round}\n`, { flag: 'a' });
    results.publish.push(await timeAsync(async () => {
      const change = await workspaces.collect(prepared, box);
      await workspaces.commit(change, { message: `bench: one file (${round})\n\nRun-Id: bench\n`, authorName: 'pipeline-service', authorEmail: 'pipeline-service@users.noreply.localhost' });
      await workspaces.push(change);
      await workspaces.release(change);
    }));
    await box.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }

  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const rows = [
    ['plain git clone over HTTP (baseline)', median(results.clone)],
    ['plain git push, one-file change (baseline)', median(results.push)],
    ['git archive | tar -x of the tree (floor)', median(results.floor)],
    ['prepare, cold (empty data dir)', median(results.cold)],
    ['prepare, warm (mirror exists)', median(results.warm)],
    ['publish, one-file change (collect+commit+push)', median(results.publish)],
  ];
  console.log(`\nmedian of ${RUNS} run(s), ms`);
  for (const [name, ms] of rows) console.log(`${name.padEnd(50)} ${ms.toFixed(0).padStart(8)}`);
  const ratio = median(results.warm) / median(results.clone);
  console.log(`\nwarm prepare / plain clone = ${ratio.toFixed(2)} (target ≤ ${TARGET_WARM_RATIO}: ${ratio <= TARGET_WARM_RATIO ? 'met' : 'NOT met'})`);
  console.log(`warm prepare / floor = ${(median(results.warm) / median(results.floor)).toFixed(2)}`);
  console.log(`publish / plain push = ${(median(results.publish) / median(results.push)).toFixed(2)}`);
} finally {
  await server?.stop();
  cleanup();
}

/** Each timing starts with the writes of earlier steps flushed, so none pays for another's writeback. */
async function timeAsync(action) {
  execFileSync('sync');
  const start = performance.now();
  await action();
  return performance.now() - start;
}

/** The in-process backend's sandboxes when their archive methods work, else host directories moved with tar-stream. */
async function sandboxFactory() {
  const backend = new InProcessBackend();
  const probe = await backend.create({ runId: 'bench-probe', name: 'probe', env: {} });
  try {
    const empty = tar.pack();
    empty.finalize();
    await probe.putArchive(Readable.from(empty, { objectMode: false }));
    const make = () => backend.create({ runId: 'bench', name: 'bench', env: {} });
    make.kind = 'in-process backend (dist)';
    return make;
  } catch {
    const make = () => DirectorySandbox.create(work);
    make.kind = 'host directory with tar-stream (the in-process backend has no archive methods in this build)';
    return make;
  } finally {
    await probe.destroy();
  }
}
