import { SandboxBackendKind, type ServiceConfig } from '../config/service-config.js';
import { ContainerOrchestratorBackend } from './container-orchestrator/container-orchestrator.backend.js';
import { runningInCluster } from './container-orchestrator/kube-config.js';
import { InProcessBackend } from './in-process.backend.js';
import type { SandboxBackend } from './sandbox-backend.js';
import { UnavailableBackend } from './unavailable.backend.js';

/**
 * The backend `sandbox.backend` names; `path` is the PATH sandbox commands get (in-process);
 * `instance` names this server on the containers or pods it creates (the instance label).
 */
export function createSandboxBackend(config: ServiceConfig, path: string | undefined, options?: { instance?: string }): SandboxBackend {
  const kind = config.sandbox.backend;
  switch (kind) {
    case SandboxBackendKind.InProcess:
      return new InProcessBackend(path);
    case SandboxBackendKind.ContainerOrchestrator:
      return new ContainerOrchestratorBackend(config.sandbox, { instance: options?.instance, inCluster: runningInCluster(process.env) });
    default:
      return new UnavailableBackend(kind);
  }
}
