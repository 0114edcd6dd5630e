// npm run bench:sandbox — a sandbox's whole life, create + exec `true` + destroy, for each
// backend from dist/ (built first when missing or older than src/sandbox), BENCH_SANDBOXES (50)
// sandboxes one after another after 3 warm-ups, p50/p99/mean:
//
//   baseline  `docker run --rm <image> true` (the Docker CLI: create, attach, start, wait, remove)
//   ours      container-engine (one locked-down container: create, put its directories, start;
//             an exec through the kill wrapper; a forced remove)
//   reference container-orchestrator against the Kubernetes stand-in (test/stand-ins: each Pod a
//             container on the same engine, exec over WebSocket): the client's real protocol
//             work, with the stand-in's overhead instead of a kubelet's; no real cluster here
//   reference in-process (a directory and a child process on this host)
//
// The image is the tests' pipeline-service-test:latest (built from this host's binaries when
// missing), or BENCH_IMAGE. Target: container-engine p50 ≤ 1.5× the baseline's. Prints figures
// only; removes what it made. Without a reachable engine it says so and measures in-process only.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { importTestSupport } from './test-support.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const COUNT = Number(process.env.BENCH_SANDBOXES ?? 50);
const WARMUP = 3;
const TARGET_RATIO = 1.5;
const run = promisify(execFile);

const newestSource = (dir) => Math.max(...readdirSync(dir, { recursive: true }).map((f) => statSync(join(dir, String(f))).mtimeMs));
const built = join(ROOT, 'dist/sandbox/container-engine/container-engine.backend.js');
if (!existsSync(built) || statSync(built).mtimeMs < newestSource(join(ROOT, 'src/sandbox'))) {
  console.log('building dist/ …');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
}
const { ContainerEngineBackend } = await import(built);
const { InProcessBackend } = await import(join(ROOT, 'dist/sandbox/in-process.backend.js'));
const { DEFAULT_SANDBOX } = await import(join(ROOT, 'dist/config/service-config.js'));
const { ContainerOrchestratorBackend } = await import(join(ROOT, 'dist/sandbox/container-orchestrator/container-orchestrator.backend.js'));
const { ensureDockerEngine, ensureSandboxImage } = await importTestSupport('test/support/sandbox-image.js');

/** Times `once` COUNT times after WARMUP untimed calls; answers the durations in ms. */
async function measure(once) {
  for (let i = 0; i < WARMUP; i++) await once(i);
  const times = [];
  for (let i = 0; i < COUNT; i++) {
    const started = performance.now();
    await once(i);
    times.push(performance.now() - started);
  }
  return times;
}

function stats(times) {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { p50: at(0.5), p99: at(0.99), mean: times.reduce((s, t) => s + t, 0) / times.length };
}

const line = (label, s, extra = '') => console.log(`${label.padEnd(44)} p50 ${s.p50.toFixed(1).padStart(7)} ms   p99 ${s.p99.toFixed(1).padStart(7)} ms   mean ${s.mean.toFixed(1).padStart(7)} ms${extra}`);

/** create + exec `true` + destroy on a backend. */
const lifecycle = (backend) => async (i) => {
  const sandbox = await backend.create({ runId: `bench-${process.pid}-${i}`, name: 'bench', env: {} });
  try {
    const result = await sandbox.exec('true', { timeoutMs: 30_000, onLine: () => undefined });
    if (result.exitCode !== 0) throw new Error(`true exited ${result.exitCode}`);
  } finally {
    await sandbox.destroy();
  }
};

console.log(`${COUNT} sandboxes each (after ${WARMUP} warm-ups), one at a time`);
const unavailable = await ensureDockerEngine();
if (unavailable) {
  console.log(`container engine: none (${unavailable}); in-process only`);
} else {
  const image = process.env.BENCH_IMAGE ?? (await ensureSandboxImage());
  const { stdout } = await run('docker', ['version', '--format', '{{.Server.Version}} (API {{.Server.APIVersion}})']);
  console.log(`engine ${stdout.trim()}, image ${image}`);
  const baseline = stats(await measure(() => run('docker', ['run', '--rm', image, 'true'])));
  line('baseline  docker run --rm <image> true', baseline);
  const engine = new ContainerEngineBackend({ ...DEFAULT_SANDBOX, backend: 'container-engine', image, memory: 512 * 1024 ** 2 }, { instanceId: 'bench' });
  const ours = stats(await measure(lifecycle(engine)));
  const ratio = ours.p50 / baseline.p50;
  line('ours      container-engine', ours, `   ${ratio.toFixed(2)}× baseline at p50 (target ≤ ${TARGET_RATIO}×: ${ratio <= TARGET_RATIO ? 'met' : 'NOT met'})`);

  const { KubernetesStandIn } = await importTestSupport('test/stand-ins/kubernetes-stand-in.js');
  const { ensureKubernetesTestImage } = await importTestSupport('test/stand-ins/kubernetes/test-image.js');
  const cluster = await new KubernetesStandIn({ namespaces: ['bench'] }).start();
  const dir = await mkdtemp(join(tmpdir(), 'bench-orchestrator-'));
  try {
    const orchestrator = new ContainerOrchestratorBackend({
      ...DEFAULT_SANDBOX, backend: 'container-orchestrator', image: ensureKubernetesTestImage(), memory: 512 * 1024 ** 2,
      orchestrator: { namespace: 'bench', kubeconfig: cluster.writeKubeconfig(dir) },
    }, { instance: 'bench', startTimeoutMs: 30_000 });
    const pods = stats(await measure(lifecycle(orchestrator)));
    line('reference container-orchestrator (stand-in)', pods, `   ${(pods.p50 / baseline.p50).toFixed(2)}× baseline at p50`);
  } finally {
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
line('reference in-process', stats(await measure(lifecycle(new InProcessBackend('/usr/bin:/bin')))));
