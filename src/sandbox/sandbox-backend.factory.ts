import type { ServiceConfig } from '../config/service-config.js';
import type { SandboxBackend } from './sandbox-backend.js';
import type { SandboxEnvironment } from './sandbox-backend-descriptor.js';
import { sandboxBackendNamed } from './sandbox-backends.js';
import { UnavailableBackend } from './unavailable.backend.js';

/**
 * The backend `sandbox.backend` names, built by its descriptor (`sandbox-backends.ts`).
 * `instanceId` labels the containers and pods this process creates (the server's
 * InstanceIdentity; the CLI lets the backend pick one). A name this build does not know gets a
 * backend that answers its probe with why.
 */
export function createSandboxBackend(config: ServiceConfig, env: SandboxEnvironment, instanceId?: string): SandboxBackend {
  const backend = sandboxBackendNamed(config.sandbox.backend);
  return backend ? backend.create(config, env, instanceId) : new UnavailableBackend(config.sandbox.backend);
}
