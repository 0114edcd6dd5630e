import type { SandboxBackendKind } from './sandbox-backends.js';
import type { BackendVersion, ProbeResult, Sandbox, SandboxBackend } from './sandbox-backend.js';

/** A configured backend this build cannot drive: it answers its probe with why, and creates nothing. */
export class UnavailableBackend implements SandboxBackend {
  constructor(readonly kind: SandboxBackendKind) {}

  async probe(): Promise<ProbeResult> {
    return {
      ok: false,
      reason: `sandbox backend ${this.kind} is not available in this release`,
      fixHint: 'set sandbox.backend: in-process',
    };
  }

  async version(): Promise<BackendVersion> {
    throw new Error(`sandbox backend ${this.kind} is not available in this release`);
  }

  async create(): Promise<Sandbox> {
    throw new Error(`sandbox backend ${this.kind} is not available in this release; set sandbox.backend: in-process`);
  }
}
