import type { BlockShape } from '../config/field-shapes.js';
import { containerEngineBackend } from './container-engine/container-engine.descriptor.js';
import { containerOrchestratorBackend } from './container-orchestrator/container-orchestrator.descriptor.js';
import { inProcessBackend } from './in-process.descriptor.js';
import type { SandboxBackendDescriptor } from './sandbox-backend-descriptor.js';

/**
 * The sandbox backends this build can drive, the default first: the one list the configuration
 * (the valid `sandbox.backend` values, each backend's own block), the factory, the agent
 * pipelines' isolation rule and the diagnostics read. A new backend is a folder with its
 * descriptor, added here.
 */
export const SANDBOX_BACKENDS = [inProcessBackend, containerEngineBackend, containerOrchestratorBackend] as const;

/** A valid `sandbox.backend`. */
export type SandboxBackendKind = (typeof SANDBOX_BACKENDS)[number]['name'];

/** The names, by constant: for code inside src/sandbox/ and the backends' own tests. */
export const SandboxBackendKind = {
  InProcess: inProcessBackend.name,
  ContainerEngine: containerEngineBackend.name,
  ContainerOrchestrator: containerOrchestratorBackend.name,
} as const;

export const SANDBOX_BACKEND_NAMES: readonly SandboxBackendKind[] = SANDBOX_BACKENDS.map((backend) => backend.name);

/** What `sandbox.backend` is when the configuration does not say. */
export const DEFAULT_SANDBOX_BACKEND: SandboxBackendKind = SANDBOX_BACKENDS[0].name;

/** The descriptor of the backend `name` stands for; undefined for a name this build does not know. */
export function sandboxBackendNamed(name: string): SandboxBackendDescriptor | undefined {
  return SANDBOX_BACKENDS.find((backend) => backend.name === name);
}

/** The backends' own keys under `sandbox:` (`engine:`, `orchestrator:`), in the order above. */
export const SANDBOX_BACKEND_KEYS: Readonly<Record<string, BlockShape>> = Object.assign({}, ...SANDBOX_BACKENDS.map((backend) => backend.settings?.keys ?? {}));
