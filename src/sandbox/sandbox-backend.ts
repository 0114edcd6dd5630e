import type { SandboxBackendKind } from '../config/service-config.js';

export type ProbeResult = { ok: true; detail: string } | { ok: false; reason: string; fixHint: string };

/** A place runs execute in. Each backend answers `probe()` so the server can tell if it works. */
export interface SandboxBackend {
  readonly kind: SandboxBackendKind;
  probe(): Promise<ProbeResult>;
}
