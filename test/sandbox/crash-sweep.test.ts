import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import { SandboxLabel } from '../../src/sandbox/sandbox-backend.js';
import { ClaimService } from '../../src/tickets/claim.service.js';
import { bootClaimContext } from '../runs/support/run-test-app.js';
import { type RunTestSetup, createRunTestSetup, eventually } from '../runs/support/run-test-setup.js';
import { type ServerChild, startServerChild } from '../runs/support/server-child.js';
import { KubernetesStandIn } from '../stand-ins/kubernetes-stand-in.js';
import { ensureKubernetesTestImage } from '../stand-ins/kubernetes/test-image.js';
import { TEST_IMAGE, ensureDockerEngine, ensureSandboxImage } from '../support/sandbox-image.js';

// A machine without a container engine reports these tests skipped, with the reason, never passed.
const unavailable = await ensureDockerEngine();

/** One backend's sandboxes: the configuration, and the sandboxes of a run still there. */
interface BackendUnderTest {
  name: string;
  sandbox(): Promise<Record<string, unknown>>;
  leftOf(runId: string): Promise<number>;
  stop(): Promise<void>;
}

const docker = new Docker();

const ENGINE: BackendUnderTest = {
  name: 'container-engine',
  sandbox: async () => {
    await ensureSandboxImage(docker);
    return { backend: 'container-engine', image: TEST_IMAGE, cpu: 1, memory: '256Mi' };
  },
  leftOf: async (runId) => (await docker.listContainers({ all: true, filters: { label: [`${SandboxLabel.RunId}=${runId}`] } })).length,
  stop: async () => undefined,
};

/** The Kubernetes stand-in in this process; the replicas reach it over HTTPS with its kubeconfig. */
function orchestrator(): BackendUnderTest {
  let cluster: KubernetesStandIn | null = null;
  return {
    name: 'container-orchestrator',
    sandbox: async () => {
      cluster = await new KubernetesStandIn({ namespaces: ['sweep'] }).start();
      const kubeconfig = cluster.writeKubeconfig(mkdtempSync(join(tmpdir(), 'crash-sweep-kube-')));
      return { backend: 'container-orchestrator', image: ensureKubernetesTestImage(), cpu: 1, memory: '256Mi', orchestrator: { namespace: 'sweep', kubeconfig } };
    },
    leftOf: async (runId) => cluster!.pods.list('sweep').filter((pod) => Object.values(pod.metadata.annotations as Record<string, string> ?? {}).includes(runId)
      || pod.metadata.labels?.[SandboxLabel.RunId] === runId).length,
    stop: async () => cluster?.stop(),
  };
}

for (const backend of [ENGINE, orchestrator()]) {
  describe.skipIf(unavailable)(`a server killed mid-run leaves a ${backend.name} sandbox the next housekeeping pass removes${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
    const logDir = mkdtempSync(join(tmpdir(), 'crash-sweep-'));
    let setup: RunTestSetup;
    let claims: INestApplicationContext;
    const children: ServerChild[] = [];

    beforeAll(async () => {
      setup = await createRunTestSetup({ sandbox: await backend.sandbox() });
      claims = await bootClaimContext(setup.env);
    }, 120_000);

    afterAll(async () => {
      await Promise.all(children.map((c) => c.kill('SIGKILL')));
      await claims?.close();
      await setup?.cleanup();
      await backend.stop();
    });

    it('kills the replica running the pipeline; the survivor fails the run as stale and removes its sandbox', async () => {
      children.push(await startServerChild(setup.env, setup.redis, setup.keyPrefix, join(logDir, 'a.log')));
      children.push(await startServerChild(setup.env, setup.redis, setup.keyPrefix, join(logDir, 'b.log')));
      const outcome = await claims.get(ClaimService).claim({ platform: Platform.GitHub, project: 'solo', ticket: 'crash-box' }, 'slow');
      expect(outcome.outcome).toBe('Claimed');
      const runId = outcome.outcome === 'Claimed' ? outcome.runId : '';
      // The run is in its container (`sleep 20`).
      const owner = await eventually(async () => {
        const { rows } = await setup.db.query(`SELECT owner FROM runs WHERE id = $1 AND state = 'running'`, [runId]);
        return rows[0]?.owner && (await backend.leftOf(runId)) > 0 ? (rows[0].owner as string) : undefined;
      }, 60_000, 'the run to be running in a container');
      const running = children.find((c) => owner.startsWith(c.instancePrefix)) as ServerChild;
      await running.kill('SIGKILL');
      // Nobody destroyed it: the process that would have is gone.
      expect(await backend.leftOf(runId)).toBe(1);
      await eventually(async () => {
        const { rows } = await setup.db.query('SELECT state FROM runs WHERE id = $1', [runId]);
        return rows[0]?.state === 'failed' ? true : undefined;
      }, 30_000, 'the run to be failed as stale');
      await eventually(async () => ((await backend.leftOf(runId)) === 0 ? true : undefined), 30_000, 'the housekeeping sweep to remove the sandbox');
    }, 180_000);
  });
}
