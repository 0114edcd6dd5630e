import { SandboxBackendKind, type ServiceConfig } from '../config/service-config.js';
import { InProcessBackend } from './in-process.backend.js';
import type { SandboxBackend } from './sandbox-backend.js';
import { UnavailableBackend } from './unavailable.backend.js';

/** The backend `sandbox.backend` names; `path` is the PATH sandbox commands get. */
export function createSandboxBackend(config: ServiceConfig, path: string | undefined): SandboxBackend {
  const kind = config.sandbox.backend;
  return kind === SandboxBackendKind.InProcess ? new InProcessBackend(path) : new UnavailableBackend(kind);
}
