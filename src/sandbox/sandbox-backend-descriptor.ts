import type { ConfigReader, Location } from '../config/config-reader.js';
import type { BlockShape } from '../config/field-shapes.js';
import type { SandboxConfig, ServiceConfig } from '../config/service-config.js';
import type { SandboxBackend } from './sandbox-backend.js';

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
 * All the server knows about one sandbox backend beyond the `SandboxBackend` it builds. Each
 * backend exports one beside its code; `sandbox-backends.ts` lists them, and code outside
 * `src/sandbox/` asks that list instead of comparing a backend's name.
 */
export interface SandboxBackendDescriptor<Name extends string = string> {
  /** The value of `sandbox.backend` that selects it. */
  readonly name: Name;
  /**
   * Whether a run's commands are kept from the server's host (its files, its processes). Agent
   * pipelines refuse a backend that is not, unless `sandbox.allow_agents_in_process` says otherwise.
   */
  readonly isolatesFromHost: boolean;
  /**
   * Its own keys under `sandbox:` (a block each, as `engine:`), declared and read here; the
   * configuration's `sandbox:` block takes them in (its unknown-key check and JSON schema too).
   */
  readonly settings?: BackendSettings;
  /** The address the diagnostics show before a probe has answered; null when only a probe learns it (or there is none). */
  target(sandbox: SandboxConfig, env: SandboxEnvironment): string | null;
  /**
   * Builds the backend. `instanceId` labels the containers and pods this process creates; a
   * backend whose client library is slow to import loads it here on first use (`LazyBackend`),
   * so a server that never uses it does not pay for it at boot.
   */
  create(config: ServiceConfig, env: SandboxEnvironment, instanceId?: string): SandboxBackend;
}

/** A backend's own keys under `sandbox:`. */
export interface BackendSettings {
  readonly keys: Readonly<Record<string, BlockShape>>;
  /** Reads them from the `sandbox:` block `raw` (at `where`) into `sandbox`; problems go to `r`, as the configuration's own. */
  read(r: ConfigReader, raw: Readonly<Record<string, unknown>>, where: Location, sandbox: SandboxConfig): void;
}
