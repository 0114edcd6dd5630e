import type { SandboxBackendKind } from './sandbox-backends.js';
import type { BackendVersion, ProbeResult, Sandbox, SandboxBackend, SandboxSpec } from './sandbox-backend.js';

/**
 * A backend whose module is loaded on first use. The container backends' client libraries are
 * large (`@kubernetes/client-node` alone takes about 0.75 s to import): a server that never uses
 * them must not pay for them at boot, and one that does pays once, off the startup path.
 */
export class LazyBackend implements SandboxBackend {
  private loaded: Promise<SandboxBackend> | null = null;

  constructor(readonly kind: SandboxBackendKind, private readonly load: () => Promise<SandboxBackend>) {}

  private backend(): Promise<SandboxBackend> {
    this.loaded ??= this.load().catch((error: unknown) => {
      this.loaded = null; // a failed load is tried again next time
      throw error;
    });
    return this.loaded;
  }

  async probe(): Promise<ProbeResult> {
    let backend: SandboxBackend;
    try {
      backend = await this.backend();
    } catch (error) {
      return { ok: false, reason: `sandbox backend ${this.kind} could not be loaded: ${(error as Error).message}`, fixHint: 'reinstall the server (npm ci)' };
    }
    return backend.probe();
  }

  async version(): Promise<BackendVersion> {
    return (await this.backend()).version();
  }

  async create(spec: SandboxSpec): Promise<Sandbox> {
    return (await this.backend()).create(spec);
  }

  async sweep(isLive: (runId: string) => Promise<boolean>): Promise<number> {
    const backend = await this.backend();
    return backend.sweep ? backend.sweep(isLive) : 0;
  }
}
