/** Injection token of the diagnostics' tunables. */
export const DIAGNOSTICS_OPTIONS = Symbol('DIAGNOSTICS_OPTIONS');

export interface DiagnosticsOptions {
  /** The longest a probe waits for its round trip (contract: 30 s at most). Tests shorten it. */
  probeTimeoutMs: number;
}

export const DEFAULT_DIAGNOSTICS_OPTIONS: DiagnosticsOptions = { probeTimeoutMs: 30_000 };
