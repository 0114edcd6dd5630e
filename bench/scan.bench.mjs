// npm run bench:scan — the security-scan's deterministic secret scanners on a generated
// repository (BENCH_SCAN_FILES 10,000 files of ~BENCH_SCAN_FILE_BYTES 4,000 bytes, 1,000 commits,
// a few planted secrets), from dist/ (built first when missing or older than the sources they use),
// p50 over BENCH_SCAN_REPS (5) runs after one warm-up, in the same run:
//
//   baseline  `git grep -I -n -E <one simple pattern> <commit>` over the same tree
//   ours      the tree scan (ls-tree for sizes, git grep -I with every rule's hint, the rules)
//   ours      the history scan (git log -p -U0 of the last 500 commits, the rules on added lines)
//
// Target: the tree scan's p50 within 3× the baseline's. Prints figures only; removes what it made.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { generateRepository, gitEnv } from './generated-repository.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FILES = Number(process.env.BENCH_SCAN_FILES ?? 10_000);
const FILE_BYTES = Number(process.env.BENCH_SCAN_FILE_BYTES ?? 4000);
const COMMITS = 1000;
const REPS = Number(process.env.BENCH_SCAN_REPS ?? 5);
const TARGET_RATIO = 3;
const BASELINE_PATTERN = 'secret';

const newestSource = (dir) => Math.max(...readdirSync(dir, { recursive: true }).map((f) => statSync(join(dir, String(f))).mtimeMs));
const built = join(ROOT, 'dist/pipelines/security-scan/scanners/tree-secrets.scanner.js');
const sources = ['src/pipelines/security-scan', 'src/common', 'src/workspaces/git'].map((dir) => newestSource(join(ROOT, dir)));
if (!existsSync(built) || statSync(built).mtimeMs < Math.max(...sources)) {
  console.log('building dist/ …');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
}
const { scanTreeForSecrets } = await import(built);
const { scanHistoryForSecrets } = await import(join(ROOT, 'dist/pipelines/security-scan/scanners/history-secrets.scanner.js'));
const { GitCli } = await import(join(ROOT, 'dist/workspaces/git/git-command.js'));

// Built at run time so this file holds no token itself.
const PLANTED = {
  github: ['ghp', '_', 'R8x2Lq9ZtW4vN7mK3pYc6bHs1dFg5jAe0uQi'].join(''),
  aws: ['AKIA', 'Q3XW7ZP2LM8RT4VN'].join(''),
  removed: ['glpat', '-', 'Removed7Kp2Lm9Qr4Tv8Wz1'].join(''),
};

/** Three more commits on main: secrets added to the tree, and one added then removed. */
function plantSecrets(bare) {
  const commit = (i, files) => {
    let body = `commit refs/heads/main\ncommitter Bench <bench@example.test> ${1_800_000_000 + i * 60} +0000\ndata 7\nplanted\n${i === 0 ? 'from refs/heads/main^0\n' : ''}`;
    for (const [path, content] of Object.entries(files)) body += content === null ? `D ${path}\n` : `M 100644 inline ${path}\ndata ${Buffer.byteLength(content)}\n${content}\n`;
    return `${body}\n`;
  };
  const input = [
    commit(0, { 'config/.env': `GITHUB_TOKEN=${PLANTED.github}\nAWS_ACCESS_KEY_ID=${PLANTED.aws}\nDB_PASSWORD="Xk29fLq8Zr7mWp3N"\n`, 'src/old.ts': `export const t = "${PLANTED.removed}";\n` }),
    commit(1, { 'src/old.ts': null }),
  ].join('');
  execFileSync('git', ['fast-import', '--quiet'], { env: gitEnv({ GIT_DIR: bare }), input });
}

/** Runs `git grep` as the baseline, reading (and dropping) all of its output. */
function gitGrep(bare, commit) {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['grep', '-I', '-n', '-E', BASELINE_PATTERN, commit], { env: gitEnv({ GIT_DIR: bare }), stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.resume();
    child.once('error', reject);
    child.once('close', (code) => (code === 0 || code === 1 ? resolve() : reject(new Error(`git grep exited ${code}`))));
  });
}

async function measure(once) {
  await once();
  const times = [];
  for (let i = 0; i < REPS; i++) {
    const started = performance.now();
    await once();
    times.push(performance.now() - started);
  }
  const sorted = [...times].sort((a, b) => a - b);
  return { p50: sorted[Math.ceil(sorted.length / 2) - 1], min: sorted[0], max: sorted.at(-1) };
}

const line = (label, s, extra = '') => console.log(`${label.padEnd(52)} p50 ${s.p50.toFixed(0).padStart(6)} ms   min ${s.min.toFixed(0).padStart(6)} ms   max ${s.max.toFixed(0).padStart(6)} ms${extra}`);

const dir = mkdtempSync(join(tmpdir(), 'bench-scan-'));
try {
  const bare = join(dir, 'repo.git');
  const generating = performance.now();
  const bytes = await generateRepository(bare, { files: FILES, fileBytes: FILE_BYTES, commits: COMMITS - 2 });
  plantSecrets(bare);
  const commit = execFileSync('git', ['rev-parse', 'main'], { env: gitEnv({ GIT_DIR: bare }), encoding: 'utf8' }).trim();
  const count = execFileSync('git', ['rev-list', '--count', 'main'], { env: gitEnv({ GIT_DIR: bare }), encoding: 'utf8' }).trim();
  console.log(`repository: ${FILES} files, ${(bytes / 1024 / 1024).toFixed(1)} MiB tree, ${count} commits (generated in ${((performance.now() - generating) / 1000).toFixed(1)} s); ${REPS} runs each after a warm-up`);

  const cli = new GitCli({ home: dir, path: gitEnv().PATH });
  const tree = { repo: 'bench', commit, git: (args) => cli.stream(args, { timeoutMs: 600_000, variables: { GIT_DIR: bare } }) };
  let treeFindings = 0;
  let fingerprints = new Set();
  let historyFindings = 0;

  const baseline = await measure(() => gitGrep(bare, commit));
  line(`baseline  git grep -I -n -E '${BASELINE_PATTERN}' <commit>`, baseline);
  const treeScan = await measure(async () => {
    const result = await scanTreeForSecrets(tree);
    treeFindings = result.report.findings.length;
    fingerprints = result.fingerprints;
  });
  const ratio = treeScan.p50 / baseline.p50;
  line('ours      tree scan', treeScan, `   ${ratio.toFixed(2)}× baseline at p50 (target ≤ ${TARGET_RATIO}×: ${ratio <= TARGET_RATIO ? 'met' : 'NOT met'}); ${treeFindings} findings`);
  const historyScan = await measure(async () => {
    historyFindings = (await scanHistoryForSecrets(tree, { inTree: fingerprints })).findings.length;
  });
  line('ours      history scan (last 500 commits)', historyScan, `   ${historyFindings} finding${historyFindings === 1 ? '' : 's'}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
