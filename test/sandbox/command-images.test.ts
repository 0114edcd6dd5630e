import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX, type SandboxConfig, SandboxNetwork } from '../../src/config/service-config.js';
import { SandboxBackendKind } from '../../src/sandbox/sandbox-backends.js';
import { ContainerEngineBackend } from '../../src/sandbox/container-engine/container-engine.backend.js';
import { ContainerOrchestratorBackend } from '../../src/sandbox/container-orchestrator/container-orchestrator.backend.js';
import type { ExecOptions, Sandbox, SandboxBackend } from '../../src/sandbox/sandbox-backend.js';
import { KubernetesStandIn } from '../stand-ins/kubernetes-stand-in.js';
import { ensureKubernetesTestImage } from '../stand-ins/kubernetes/test-image.js';
import { BUSYBOX_IMAGE, ensureBusyboxImage } from '../support/busybox-image.js';
import { LIVE_PROCESSES, running } from '../support/process-list.js';
import { NO_SETSID_TEST_IMAGE, TEST_IMAGE, ensureDockerEngine, ensureSandboxImage } from '../support/sandbox-image.js';

// A machine without a container engine reports these tests skipped, with the reason, never passed.
const unavailable = await ensureDockerEngine();
if (unavailable) console.warn(`command-images tests skipped: ${unavailable}`);

const docker = new Docker();
const NAMESPACE = 'images';
const base: SandboxConfig = { ...DEFAULT_SANDBOX, cpu: 0.5, memory: 256 * 1024 ** 2, network: SandboxNetwork.None };

/** Each backend with the Debian-style image its other tests use; the busybox images serve both. */
const BACKENDS = [
  { backend: SandboxBackendKind.ContainerEngine, debian: TEST_IMAGE },
  { backend: SandboxBackendKind.ContainerOrchestrator, debian: 'pipeline-service-k8s-test:latest' },
] as const;
const IMAGES = [
  { kind: 'Debian (dash, util-linux setsid)', image: null },
  { kind: 'busybox (ash, busybox setsid without -w)', image: BUSYBOX_IMAGE },
  { kind: 'Debian-style without any setsid', image: NO_SETSID_TEST_IMAGE },
] as const;

function collector(timeoutMs = 30_000): ExecOptions & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { timeoutMs, out, err, onLine: (stream, line) => (stream === 'stdout' ? out : err).push(line) };
}

describe.skipIf(unavailable)(`commands on Debian-style, busybox and setsid-less images, both container backends${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  let standIn: KubernetesStandIn;
  let dir: string;
  const backends = new Map<string, SandboxBackend>();
  const created: Sandbox[] = [];

  beforeAll(async () => {
    await ensureSandboxImage(docker);
    ensureKubernetesTestImage();
    await ensureSandboxImage(docker, NO_SETSID_TEST_IMAGE);
    await ensureBusyboxImage(docker);
    standIn = await new KubernetesStandIn({ namespaces: [NAMESPACE] }).start();
    dir = await mkdtemp(join(tmpdir(), 'command-images-'));
    backends.set(SandboxBackendKind.ContainerEngine, new ContainerEngineBackend({ ...base, backend: SandboxBackendKind.ContainerEngine, image: TEST_IMAGE }, { instanceId: 'command-images' }));
    backends.set(SandboxBackendKind.ContainerOrchestrator, new ContainerOrchestratorBackend(
      { ...base, backend: SandboxBackendKind.ContainerOrchestrator, image: TEST_IMAGE, orchestrator: { namespace: NAMESPACE, kubeconfig: standIn.writeKubeconfig(dir) } },
      { instance: 'command-images', startTimeoutMs: 30_000 },
    ));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(created.map((s) => s.destroy()));
    await standIn?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  describe.each(BACKENDS)('$backend backend', ({ backend, debian }) => {
    describe.each(IMAGES)('on an image: $kind', ({ image }) => {
      const sandbox = async (): Promise<Sandbox> => {
        const made = await backends.get(backend)!.create({ runId: `images-${Math.random().toString(36).slice(2, 10)}`, name: 'web', env: {}, image: image ?? debian });
        created.push(made);
        return made;
      };

      it('passes on each command\'s exit code and output, and records the command\'s group only while it runs', async () => {
        const box = await sandbox();
        for (const [command, exitCode] of [['true', 0], ['false', 1], ['exit 3', 3]] as const) {
          expect(await box.exec(command, collector()), command).toEqual({ exitCode, signal: null, timedOut: false });
        }
        const slept = collector();
        expect(await box.exec('sleep 1; echo slept; echo warned >&2; exit 4', slept)).toEqual({ exitCode: 4, signal: null, timedOut: false });
        expect([slept.out, slept.err]).toEqual([['slept'], ['warned']]);
        // The one record left is this command's own, naming the group the command runs in.
        const own = collector();
        await box.exec('read -r _ _ _ _ g _ < /proc/$$/stat; echo "group=$g"; echo "records=$(cat /tmp/.pipeline-service-exec-* /tmp/.pipeline-service-exec/* 2>/dev/null)"', own);
        const group = own.out[0]!.slice('group='.length);
        expect(own.out).toEqual([`group=${group}`, `records=${group}`]);
      });

      it('a cancel kills the command\'s whole group (a child and the grandchild it started); a timeout kills too', async () => {
        const box = await sandbox();
        const controller = new AbortController();
        const options = collector(60_000);
        const cancelled = await box.exec('sh -c \'sleep 321 & echo "grandchild $!"; wait\' & sleep 322; echo never', {
          ...options,
          signal: controller.signal,
          onLine: (stream, line) => {
            options.onLine(stream, line);
            if (line.startsWith('grandchild ')) controller.abort();
          },
        });
        expect(cancelled, JSON.stringify(options)).toEqual({ exitCode: null, signal: 'SIGKILL', timedOut: false });
        expect(options.out.filter((l) => l === 'never')).toEqual([]);
        const timedOut = await box.exec('sleep 323 & sleep 324', collector(1000));
        expect(timedOut).toEqual({ exitCode: null, signal: 'SIGKILL', timedOut: true });
        const listed = collector();
        expect(await box.exec(LIVE_PROCESSES, listed)).toMatchObject({ exitCode: 0 });
        expect(running(listed.out, 'sh ')).toEqual([]);
        expect(running(listed.out, 'sleep 32')).toEqual([]);
      });
    });
  });
});
