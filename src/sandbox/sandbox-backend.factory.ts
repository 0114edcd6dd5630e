import { SandboxBackendKind, type ServiceConfig } from '../config/service-config.js';
import { InProcessBackend } from './in-process.backend.js';
import { LazyBackend } from './lazy.backend.js';
import type { SandboxBackend } from './sandbox-backend.js';
import { UnavailableBackend } from './unavailable.backend.js';

/** What the backends take from the server's environment (read once, in config/). */
export interface SandboxEnvironment {
  /** The PATH in-process sandbox commands get. */
  PATH?: string;
  /** The container engine's address; wins over `sandbox.engine.host`. */
  DOCKER_HOST?: string;
  /** Set by Kubernetes in every pod: the orchestrator backend then uses the in-cluster configuration. */
  KUBERNETES_SERVICE_HOST?: string;
}

/**
 * The backend `sandbox.backend` names. `instanceId` labels the containers and pods this process
 * creates (the server's InstanceIdentity; the CLI lets the backend pick one); the store's key
 * prefix scopes the engine's container sweep to this deployment. The container backends are
 * loaded on first use (their client libraries are slow to import).
 */
export function createSandboxBackend(config: ServiceConfig, env: SandboxEnvironment, instanceId?: string): SandboxBackend {
  const { sandbox } = config;
  switch (sandbox.backend) {
    case SandboxBackendKind.InProcess:
      return new InProcessBackend(env.PATH);
    case SandboxBackendKind.ContainerEngine:
      return new LazyBackend(sandbox.backend, async () => {
        const { ContainerEngineBackend } = await import('./container-engine/container-engine.backend.js');
        return new ContainerEngineBackend(sandbox, { dockerHost: env.DOCKER_HOST, instanceId, scope: config.queue.key_prefix });
      });
    case SandboxBackendKind.ContainerOrchestrator:
      return new LazyBackend(sandbox.backend, async () => {
        const [{ ContainerOrchestratorBackend }, { runningInCluster }] = await Promise.all([
          import('./container-orchestrator/container-orchestrator.backend.js'),
          import('./container-orchestrator/kube-config.js'),
        ]);
        return new ContainerOrchestratorBackend(sandbox, { instance: instanceId, inCluster: runningInCluster(env) });
      });
    default:
      return new UnavailableBackend(sandbox.backend);
  }
}
