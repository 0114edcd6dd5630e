import { mkdir, mkdtemp, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { KubeConfig } from '@kubernetes/client-node';
import { pack } from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX, type SandboxConfig, SandboxNetwork } from '../../src/config/service-config.js';
import { SandboxBackendKind } from '../../src/sandbox/sandbox-backends.js';
import { ContainerOrchestratorBackend } from '../../src/sandbox/container-orchestrator/container-orchestrator.backend.js';
import type { OrchestratorSandbox } from '../../src/sandbox/container-orchestrator/orchestrator.sandbox.js';
import { packDirectory } from '../../src/sandbox/pack-directory.js';
import { type ExecOptions, SandboxLabel } from '../../src/sandbox/sandbox-backend.js';
import { unpackInto } from '../../src/sandbox/unpack-into.js';
import { KubernetesStandIn } from '../stand-ins/kubernetes-stand-in.js';
import { dockerEngine } from '../stand-ins/kubernetes/docker-engine.js';
import { ensureKubernetesTestImage } from '../stand-ins/kubernetes/test-image.js';

const engine = await dockerEngine();
const NAMESPACE = 'sandboxes';
const MEMORY = 256 * 1024 ** 2;

function collector(): ExecOptions & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { timeoutMs: 20_000, out, err, onLine: (stream, line) => (stream === 'stdout' ? out : err).push(line) };
}

describe.skipIf(!engine.ok)(`container-orchestrator backend against the Kubernetes stand-in${engine.ok ? '' : ` (skipped: ${engine.reason})`}`, () => {
  let standIn: KubernetesStandIn;
  let dir: string;
  let config: SandboxConfig;
  let backend: ContainerOrchestratorBackend;

  beforeAll(async () => {
    const image = ensureKubernetesTestImage();
    standIn = await new KubernetesStandIn({ namespaces: [NAMESPACE] }).start();
    dir = await mkdtemp(join(tmpdir(), 'orchestrator-test-'));
    config = {
      ...DEFAULT_SANDBOX,
      backend: SandboxBackendKind.ContainerOrchestrator,
      image,
      cpu: 0.5,
      memory: MEMORY,
      network: SandboxNetwork.None,
      orchestrator: { namespace: NAMESPACE, kubeconfig: standIn.writeKubeconfig(dir) },
    };
    backend = new ContainerOrchestratorBackend(config, { instance: 'test host:1', startTimeoutMs: 20_000 });
  });

  afterAll(async () => {
    await standIn?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('probes the cluster version and a dry-run pod creation; an unreachable cluster is a finding', async () => {
    const before = standIn.pods.list(NAMESPACE).length;
    const probe = await backend.probe();
    expect(probe).toMatchObject({ ok: true });
    expect(probe.ok && probe.detail).toContain('v1.32.0-stand-in');
    expect(standIn.requests.some((r) => r.method === 'POST' && r.query.get('dryRun') === 'All')).toBe(true);
    expect(standIn.pods.list(NAMESPACE)).toHaveLength(before);

    standIn.setRefusing(true);
    try {
      const down = await backend.probe();
      expect(down).toMatchObject({ ok: false });
      expect(!down.ok && down.reason).toMatch(/unreachable/);
      expect(!down.ok && down.fixHint).toMatch(/kubeconfig/);
    } finally {
      standIn.setRefusing(false);
    }
    const missing = new ContainerOrchestratorBackend({ ...config, orchestrator: { namespace: NAMESPACE, kubeconfig: join(dir, 'absent') } });
    expect(await missing.probe()).toMatchObject({ ok: false });
  });

  it('runs commands in a pod: lines streamed, exit codes, only the sandbox environment; isolation proven from inside', async () => {
    const sandbox = (await backend.create({ runId: 'run-1', name: 'acme/shop-web', env: { RUN_VAR: 'x y' } })) as OrchestratorSandbox;
    try {
      const lines: string[] = [];
      const streamed = await sandbox.exec('echo one; echo two >&2; echo three; exit 3', { timeoutMs: 20_000, onLine: (s, l) => lines.push(`${s}:${l}`) });
      expect(streamed).toEqual({ exitCode: 3, signal: null, timedOut: false });
      expect(lines.filter((l) => l.startsWith('stdout'))).toEqual(['stdout:one', 'stdout:three']);
      expect(lines).toContain('stderr:two');

      const inside = collector();
      const result = await sandbox.exec([
        'echo "uid=$(id -u) gid=$(id -g)"',
        'echo "host=$(hostname)"',
        'echo "pwd=$(pwd)"',
        'echo "mem=$(cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null || cat /sys/fs/cgroup/memory.max)"',
        'echo "nets=$(ls /sys/class/net | tr "\\n" " ")"',
        'if [ -e /var/run/secrets ]; then echo secrets=present; else echo secrets=absent; fi',
        'env | sort | sed "s/^/env:/"',
      ].join('; '), { ...inside, env: { EXTRA: '1' } });
      expect(result.exitCode).toBe(0);
      expect(inside.out).toContain('uid=1000 gid=1000');
      expect(inside.out).toContain(`host=${sandbox.podName}`);
      expect(inside.out).toContain('pwd=/workspace');
      expect(inside.out).toContain(`mem=${MEMORY}`);
      expect(inside.out).toContain('nets=lo ');
      expect(inside.out).toContain('secrets=absent');
      const env = inside.out.filter((l) => l.startsWith('env:')).map((l) => l.slice(4).split('=')[0]);
      expect(env.filter((k) => k !== 'PWD' && k !== 'SHLVL' && k !== '_')).toEqual(['EXTRA', 'HOME', 'LANG', 'PATH', 'RUN_VAR']);
      expect(inside.out).toContain('env:RUN_VAR=x y');

      const pod = standIn.pods.get(NAMESPACE, sandbox.podName)!;
      expect(pod.metadata.labels).toMatchObject({ [SandboxLabel.RunId]: 'run-1', [SandboxLabel.Sandbox]: 'acme-shop-web', [SandboxLabel.Instance]: 'test-host-1' });
      const spec = (pod as any).spec;
      expect(spec).toMatchObject({ restartPolicy: 'Never', automountServiceAccountToken: false });
      expect(spec.containers[0].resources).toEqual({ requests: { cpu: '500m', memory: String(MEMORY) }, limits: { cpu: '500m', memory: String(MEMORY) } });
      expect(spec.containers[0].securityContext).toMatchObject({ runAsNonRoot: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } });
      const container = await standIn.docker.getContainer(standIn.containerOf(NAMESPACE, sandbox.podName)!).inspect();
      expect(container.Config.Labels[SandboxLabel.RunId]).toBe('run-1');
      expect(container.HostConfig.NetworkMode).toBe('none');
    } finally {
      await sandbox.destroy();
    }
  });

  it('a timeout kills the command with its children; an abort ends it too', async () => {
    const sandbox = await backend.create({ runId: 'run-2', name: 'default', env: {} });
    try {
      const started = Date.now();
      const timedOut = await sandbox.exec('sleep 300 & sleep 301; echo never', { ...collector(), timeoutMs: 1500 });
      expect(timedOut).toEqual({ exitCode: null, signal: 'SIGKILL', timedOut: true });
      expect(Date.now() - started).toBeLessThan(10_000);
      const ps = collector();
      await sandbox.exec('ps -eo args', ps);
      expect(ps.out.filter((l) => /^sleep 30[01]/.test(l))).toEqual([]);

      const controller = new AbortController();
      setTimeout(() => controller.abort(), 500);
      const aborted = await sandbox.exec('sleep 302', { ...collector(), signal: controller.signal });
      expect(aborted).toMatchObject({ exitCode: null, signal: 'SIGKILL', timedOut: false });
    } finally {
      await sandbox.destroy();
    }
  });

  it('moves a tree in and out as tar streams (executable bits, symbolic links)', async () => {
    const source = join(dir, 'tree-in');
    await mkdir(join(source, 'src/nested'), { recursive: true });
    await writeFile(join(source, 'src/main.ts'), 'console.log(1)\n');
    await writeFile(join(source, 'run.sh'), '#!/bin/sh\necho ran\n', { mode: 0o755 });
    await writeFile(join(source, 'src/nested/.hidden'), 'h');
    await symlink('src/main.ts', join(source, 'link'));
    const sandbox = await backend.create({ runId: 'run-3', name: 'default', env: {} });
    try {
      await sandbox.putArchive(packDirectory(source));
      const run = collector();
      expect(await sandbox.exec('./run.sh && readlink link && echo change > src/new.txt', run)).toMatchObject({ exitCode: 0 });
      expect(run.out).toEqual(['ran', 'src/main.ts']);

      const back = join(dir, 'tree-out');
      await mkdir(back);
      await unpackInto(back, await sandbox.getArchive());
      expect(await readFile(join(back, 'src/main.ts'), 'utf8')).toBe('console.log(1)\n');
      expect(await readFile(join(back, 'src/new.txt'), 'utf8')).toBe('change\n');
      expect(await readFile(join(back, 'src/nested/.hidden'), 'utf8')).toBe('h');
      expect((await stat(join(back, 'run.sh'))).mode & 0o111).not.toBe(0);
      expect(await readlink(join(back, 'link'))).toBe('src/main.ts');
      // Collect reads the same tree as entries, straight from the pod's archive.
      const tree: Record<string, string> = {};
      for await (const entry of (sandbox as OrchestratorSandbox).readTree()) {
        const name = entry.name.replace(/^\.\/?/, '').replace(/\/$/, '');
        tree[name] = entry.type === 'file' ? `${(entry.mode & 0o111) !== 0 ? 'x ' : ''}${entry.content?.toString()}` : entry.type === 'symlink' ? `-> ${entry.linkname}` : entry.type;
      }
      expect(tree).toEqual({
        '': 'directory', src: 'directory', 'src/nested': 'directory', 'src/main.ts': 'console.log(1)\n', 'src/new.txt': 'change\n',
        'src/nested/.hidden': 'h', 'run.sh': 'x #!/bin/sh\necho ran\n', link: '-> src/main.ts',
      });

      const escaping = pack();
      escaping.entry({ name: '../escape.txt' }, 'x');
      escaping.finalize();
      await expect(sandbox.putArchive(Readable.from(escaping))).rejects.toThrow(/"\.\.\/escape\.txt" is refused/);
    } finally {
      await sandbox.destroy();
    }
  });

  it('destroy deletes the pod and its container, and is safe twice', async () => {
    const sandbox = (await backend.create({ runId: 'run-4', name: 'default', env: {} })) as OrchestratorSandbox;
    const containerId = standIn.containerOf(NAMESPACE, sandbox.podName)!;
    await sandbox.destroy();
    await sandbox.destroy();
    await expect.poll(() => standIn.pods.get(NAMESPACE, sandbox.podName), { timeout: 10_000 }).toBeUndefined();
    await expect.poll(() => standIn.docker.getContainer(containerId).inspect().then(() => 'present', () => 'gone'), { timeout: 10_000 }).toBe('gone');
    await expect(sandbox.exec('true', collector())).rejects.toThrow(/destroyed/);
  });

  it('sweep removes the pods of runs that are no longer live, whichever instance made them', async () => {
    const other = new ContainerOrchestratorBackend(config, { instance: 'crashed-host', startTimeoutMs: 20_000 });
    const live = (await backend.create({ runId: 'run-live', name: 'default', env: {} })) as OrchestratorSandbox;
    const dead = (await other.create({ runId: 'Run/Dead:1', name: 'default', env: {} })) as OrchestratorSandbox;
    try {
      const removed = await backend.sweep(async (runId) => runId === 'run-live');
      expect(removed).toBe(1);
      await expect.poll(() => standIn.pods.get(NAMESPACE, dead.podName), { timeout: 10_000 }).toBeUndefined();
      expect(standIn.pods.get(NAMESPACE, live.podName)).toBeDefined();
    } finally {
      await live.destroy();
      await dead.destroy();
    }
  });

  it('a missing image fails create with the image named, and leaves no pod behind', async () => {
    await expect(backend.create({ runId: 'run-5', name: 'default', env: {}, image: 'pipeline-service-missing-image:9' })).rejects.toThrow(/pipeline-service-missing-image:9/);
    await expect.poll(() => standIn.pods.list(NAMESPACE).filter((p) => p.metadata.labels?.[SandboxLabel.RunId] === 'run-5').length, { timeout: 10_000 }).toBe(0);
  });

  it('network default: the pod has a network (bridge)', async () => {
    const open = new ContainerOrchestratorBackend({ ...config, network: SandboxNetwork.Default }, { startTimeoutMs: 20_000 });
    const sandbox = (await open.create({ runId: 'run-6', name: 'default', env: {} })) as OrchestratorSandbox;
    try {
      const nets = collector();
      await sandbox.exec('ls /sys/class/net', nets);
      expect(nets.out).toContain('eth0');
    } finally {
      await sandbox.destroy();
    }
  });

  it('no sandbox.registry: no pull Secret is written and pods name no imagePullSecrets', async () => {
    const sandbox = (await backend.create({ runId: 'run-7', name: 'default', env: {} })) as OrchestratorSandbox;
    try {
      expect((standIn.pods.get(NAMESPACE, sandbox.podName) as any).spec.imagePullSecrets).toBeUndefined();
      expect(standIn.imagePullSecrets.get(`${NAMESPACE}/${sandbox.podName}`)).toEqual([]);
      expect(standIn.secrets.list(null)).toEqual([]);
      expect(standIn.requests.some((r) => r.path.includes('/secrets'))).toBe(false);
    } finally {
      await sandbox.destroy();
    }
  });

  it('sandbox.registry: a dockerconfigjson Secret is kept (created, then replaced by another instance) and every pod names it', async () => {
    const ns = 'registry-sandboxes';
    standIn.addNamespace(ns);
    const registry = { server: 'registry.example:5000', username: 'puller', password: 'pw-Very$ecret-1' };
    const withRegistry = (password: string) => ({ ...config, orchestrator: { ...config.orchestrator, namespace: ns }, registry: { ...registry, password } });
    const dockerConfig = () => {
      const secret = standIn.secrets.get(ns, 'pipeline-service-registry') as any;
      return { secret, document: JSON.parse(Buffer.from(secret.data['.dockerconfigjson'], 'base64').toString('utf8')) };
    };
    const secretWrites = () => standIn.requests.filter((r) => r.path === `/api/v1/namespaces/${ns}/secrets` || r.path === `/api/v1/namespaces/${ns}/secrets/pipeline-service-registry`);

    const first = new ContainerOrchestratorBackend(withRegistry(registry.password), { instance: 'one', startTimeoutMs: 20_000 });
    const a = (await first.create({ runId: 'run-8', name: 'a', env: {} })) as OrchestratorSandbox;
    const b = (await first.create({ runId: 'run-8', name: 'b', env: {} })) as OrchestratorSandbox;
    try {
      for (const sandbox of [a, b]) {
        expect((standIn.pods.get(ns, sandbox.podName) as any).spec.imagePullSecrets).toEqual([{ name: 'pipeline-service-registry' }]);
        expect(standIn.imagePullSecrets.get(`${ns}/${sandbox.podName}`)).toEqual(['pipeline-service-registry']);
      }
      const { secret, document } = dockerConfig();
      expect(secret.type).toBe('kubernetes.io/dockerconfigjson');
      expect(secret.metadata.labels).toEqual({ 'app.kubernetes.io/managed-by': 'pipeline-service' });
      expect(document).toEqual({ auths: { 'registry.example:5000': { username: 'puller', password: registry.password, auth: Buffer.from(`puller:${registry.password}`).toString('base64') } } });
      expect(secretWrites().map((r) => r.method)).toEqual(['POST']);

      // Another instance (new credentials): its create answers 409, it replaces the Secret in place.
      const uid = secret.metadata.uid;
      const second = new ContainerOrchestratorBackend(withRegistry('pw-rotated-2'), { instance: 'two', startTimeoutMs: 20_000 });
      const c = (await second.create({ runId: 'run-9', name: 'c', env: {} })) as OrchestratorSandbox;
      await c.destroy();
      expect(secretWrites().map((r) => r.method)).toEqual(['POST', 'POST', 'PUT']);
      expect(dockerConfig().secret.metadata.uid).toBe(uid);
      expect(dockerConfig().document.auths['registry.example:5000']).toMatchObject({ password: 'pw-rotated-2', auth: Buffer.from('puller:pw-rotated-2').toString('base64') });

      // Deleted behind its back after it ensured it once: not written again by that instance; a new instance creates it.
      standIn.secrets.remove(ns, 'pipeline-service-registry');
      const d = (await second.create({ runId: 'run-9', name: 'd', env: {} })) as OrchestratorSandbox;
      await d.destroy();
      expect(secretWrites()).toHaveLength(3);
      const third = new ContainerOrchestratorBackend(withRegistry('pw-rotated-3'), { instance: 'three', startTimeoutMs: 20_000 });
      const e = (await third.create({ runId: 'run-9', name: 'e', env: {} })) as OrchestratorSandbox;
      await e.destroy();
      expect(dockerConfig().document.auths['registry.example:5000'].password).toBe('pw-rotated-3');

      // A race: the Secret exists at create (409) and is gone at replace (404): created again.
      standIn.beforeRoute = (method, path) => {
        if (method === 'PUT' && path.endsWith('/secrets/pipeline-service-registry')) standIn.secrets.remove(ns, 'pipeline-service-registry');
      };
      const racing = new ContainerOrchestratorBackend(withRegistry('pw-rotated-4'), { instance: 'four', startTimeoutMs: 20_000 });
      try {
        const f = (await racing.create({ runId: 'run-9', name: 'f', env: {} })) as OrchestratorSandbox;
        await f.destroy();
      } finally {
        standIn.beforeRoute = null;
      }
      expect(secretWrites().slice(-3).map((r) => r.method)).toEqual(['POST', 'PUT', 'POST']);
      expect(dockerConfig().document.auths['registry.example:5000'].password).toBe('pw-rotated-4');
      expect(standIn.secrets.list(NAMESPACE)).toEqual([]);
    } finally {
      await a.destroy();
      await b.destroy();
    }
  });

  it('sandbox.registry: a failure to write the Secret fails create without the password, and is retried next time', async () => {
    const password = 'pw-Never-Shown-77';
    const absent = 'registry-absent';
    const failing = new ContainerOrchestratorBackend(
      { ...config, network: SandboxNetwork.Default, orchestrator: { ...config.orchestrator, namespace: absent }, registry: { server: 'registry.example', username: 'u', password } },
      { startTimeoutMs: 20_000 },
    );
    const error = await failing.create({ runId: 'run-10', name: 'default', env: {} }).then(() => null, (e: Error) => e);
    expect(error?.message).toMatch(/pipeline-service-registry in namespace registry-absent: namespaces "registry-absent" not found/);
    expect(error?.message).not.toContain(password);
    expect(error?.message).not.toContain(Buffer.from(`u:${password}`).toString('base64'));
    standIn.addNamespace(absent);
    const sandbox = await failing.create({ runId: 'run-10', name: 'default', env: {} });
    await sandbox.destroy();
    expect(standIn.secrets.get(absent, 'pipeline-service-registry')).toBeDefined();
  });

  it('uses the kubeconfig the settings name (token auth)', () => {
    const kc = new KubeConfig();
    kc.loadFromFile(config.orchestrator.kubeconfig!);
    expect(kc.getCurrentUser()?.token).toBe(standIn.token);
  });
});
