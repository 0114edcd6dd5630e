import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubernetesStandIn } from '../stand-ins/kubernetes-stand-in.js';
import { dockerEngine } from '../stand-ins/kubernetes/docker-engine.js';
import { ensureKubernetesTestImage } from '../stand-ins/kubernetes/test-image.js';

const run = promisify(execFile);
const KUBECTL = '/usr/bin/kubectl';
const engine = await dockerEngine();
const skip = !engine.ok ? engine.reason : !existsSync(KUBECTL) ? `kubectl is not installed at ${KUBECTL}` : null;

/** kubectl, the reference client, against the stand-in: proof that it speaks the real protocol. */
describe.skipIf(skip !== null)(`kubectl against the Kubernetes stand-in${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let standIn: KubernetesStandIn;
  let dir: string;
  let kubeconfig: string;

  beforeAll(async () => {
    const image = ensureKubernetesTestImage();
    standIn = await new KubernetesStandIn({ namespaces: ['ns'] }).start();
    dir = await mkdtemp(join(tmpdir(), 'kubectl-'));
    kubeconfig = standIn.writeKubeconfig(dir);
    // `kubectl run` creates the pod (POST …/pods) as it would on a cluster.
    await kubectl('run', '-n', 'ns', 'pod-one', `--image=${image}`, '--restart=Never', '--labels=app=proof', '--command', '--', '/bin/sh', '-c', 'while :; do sleep 3600; done');
    for (let i = 0; i < 150 && (standIn.pods.get('ns', 'pod-one') as any)?.status?.phase !== 'Running'; i++) await new Promise((r) => setTimeout(r, 100));
  });

  afterAll(async () => {
    await standIn?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  function kubectl(...args: string[]): Promise<{ stdout: string; stderr: string }> {
    return run(KUBECTL, ['--kubeconfig', kubeconfig, ...args], { timeout: 20_000 });
  }

  it('get pods lists the pod (Table), with a label selector too', async () => {
    const { stdout } = await kubectl('get', 'pods', '-n', 'ns');
    expect(stdout).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE/);
    expect(stdout).toMatch(/pod-one\s+1\/1\s+Running/);
    expect((await kubectl('get', 'pods', '-n', 'ns', '-l', 'app=other')).stderr).toMatch(/No resources found/);
    expect((await kubectl('get', 'pod', 'pod-one', '-n', 'ns', '-o', 'jsonpath={.metadata.labels.app}')).stdout).toBe('proof');
  });

  it('exec over WebSocket (v5.channel.k8s.io): output, and the exit code from the status channel', async () => {
    const failed = await kubectl('exec', '-n', 'ns', 'pod-one', '--', 'sh', '-c', 'echo hi; echo err >&2; exit 3').then(
      () => null,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failed).toMatchObject({ code: 3, stdout: 'hi\n' });
    expect(failed?.stderr).toContain('err');
    const upgrade = standIn.requests.find((r) => r.path.endsWith('/exec'));
    expect(upgrade?.headers['sec-websocket-protocol']).toContain('v5.channel.k8s.io');
  });

  it('exec -i carries stdin and its end (the v5 CLOSE signal)', async () => {
    const child = execFile(KUBECTL, ['--kubeconfig', kubeconfig, 'exec', '-i', '-n', 'ns', 'pod-one', '--', 'sh', '-c', 'wc -c; echo done']);
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stdin!.end('12345');
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    expect(out).toBe('5\ndone\n');
  });

  it('refuses a request without the token (401)', async () => {
    const { stdout } = await run('curl', ['-sk', '-o', '/dev/null', '-w', '%{http_code}', `${standIn.url}/api/v1/namespaces/ns/pods`]).catch(() => ({ stdout: 'curl-missing' }));
    if (stdout !== 'curl-missing') expect(stdout).toBe('401');
  });

  it('delete pod removes it and its container', async () => {
    const containerId = standIn.containerOf('ns', 'pod-one')!;
    await kubectl('delete', 'pod', 'pod-one', '-n', 'ns', '--grace-period=0', '--force', '--wait=false');
    await expect.poll(() => standIn.docker.getContainer(containerId).inspect().then(() => 'present', () => 'gone'), { timeout: 10_000 }).toBe('gone');
  });
});
