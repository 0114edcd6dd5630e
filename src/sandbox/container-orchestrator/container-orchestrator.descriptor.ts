import { LazyBackend } from '../lazy.backend.js';
import type { SandboxBackendDescriptor } from '../sandbox-backend-descriptor.js';

export const CONTAINER_ORCHESTRATOR = 'container-orchestrator';

/**
 * A pod per sandbox on Kubernetes; `@kubernetes/client-node` is loaded on first use. The
 * cluster's address comes from the kubeconfig, which only the loaded backend reads: the
 * diagnostics learn it from a probe.
 */
export const containerOrchestratorBackend: SandboxBackendDescriptor<typeof CONTAINER_ORCHESTRATOR> = {
  name: CONTAINER_ORCHESTRATOR,
  isolatesFromHost: true,
  target: () => null,
  create: (config, env, instanceId) => new LazyBackend(CONTAINER_ORCHESTRATOR, async () => {
    const [{ ContainerOrchestratorBackend }, { runningInCluster }] = await Promise.all([
      import('./container-orchestrator.backend.js'),
      import('./kube-config.js'),
    ]);
    return new ContainerOrchestratorBackend(config.sandbox, { instance: instanceId, inCluster: runningInCluster(env) });
  }),
};
