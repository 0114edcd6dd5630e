import { block, text } from '../../config/field-shapes.js';
import type { SandboxConfig } from '../../config/service-config.js';
import { LazyBackend } from '../lazy.backend.js';
import type { SandboxBackendDescriptor } from '../sandbox-backend-descriptor.js';

export const CONTAINER_ORCHESTRATOR = 'container-orchestrator';

/** `sandbox.orchestrator` when the file says nothing: pods go to this namespace, the kubeconfig is found as kubectl finds it. */
export const DEFAULT_ORCHESTRATOR_SETTINGS: SandboxConfig['orchestrator'] = { namespace: 'pipeline-service', kubeconfig: null };

/** `sandbox.orchestrator`: the namespace pods go to, and a kubeconfig path (null → in-cluster, else ~/.kube/config). */
const ORCHESTRATOR = block({ namespace: text({ default: DEFAULT_ORCHESTRATOR_SETTINGS.namespace }), kubeconfig: text() });

/**
 * A pod per sandbox on Kubernetes; `@kubernetes/client-node` is loaded on first use. The
 * cluster's address comes from the kubeconfig, which only the loaded backend reads: the
 * diagnostics learn it from a probe.
 */
export const containerOrchestratorBackend: SandboxBackendDescriptor<typeof CONTAINER_ORCHESTRATOR> = {
  name: CONTAINER_ORCHESTRATOR,
  isolatesFromHost: true,
  settings: {
    keys: { orchestrator: ORCHESTRATOR },
    read(r, raw, where, sandbox) {
      if (raw.orchestrator === undefined) return;
      const at = r.at(where, 'orchestrator');
      const o = r.block(raw.orchestrator, at, ORCHESTRATOR);
      sandbox.orchestrator = {
        namespace: r.field(ORCHESTRATOR, o, at, 'namespace') ?? sandbox.orchestrator.namespace,
        kubeconfig: r.field(ORCHESTRATOR, o, at, 'kubeconfig'),
      };
    },
  },
  target: () => null,
  create: (config, env, instanceId) => new LazyBackend(CONTAINER_ORCHESTRATOR, async () => {
    const [{ ContainerOrchestratorBackend }, { runningInCluster }] = await Promise.all([
      import('./container-orchestrator.backend.js'),
      import('./kube-config.js'),
    ]);
    return new ContainerOrchestratorBackend(config.sandbox, { instance: instanceId, inCluster: runningInCluster(env) });
  }),
};
