/** `GET /api/diagnostics/connections` and `POST /api/diagnostics/probe` (docs/api.md "Diagnostics"). */
export interface DiagnosticsConnection {
  name: string;
  kind: 'tracker' | 'repository' | 'model' | 'chat' | 'store' | 'database' | 'sandbox' | 'authority';
  project: string | null;
  target: string | null;
  configured: boolean;
  lastOk: string | null;
  lastError: { at: string; message: string } | null;
}

export interface DiagnosticsWebhook {
  platform: string;
  secretConfigured: boolean;
  lastDelivery: { at: string; outcome: string } | null;
}

export interface DiagnosticsSnapshot {
  connections: DiagnosticsConnection[];
  webhooks: DiagnosticsWebhook[];
}

export interface ProbeAnswer {
  name: string;
  ok: boolean;
  latencyMs: number;
  error: string | null;
}

export interface CandidateProbeAnswer {
  ok: boolean;
  latencyMs: number;
  target: string | null;
  error: string | null;
}

/** Whether a connection works as far as this replica saw: the newer of its last success and failure wins. */
export function healthOf(c: Pick<DiagnosticsConnection, 'configured' | 'lastOk' | 'lastError'>): 'ok' | 'failing' | 'unknown' | 'unconfigured' {
  if (!c.configured) return 'unconfigured';
  const ok = c.lastOk ? Date.parse(c.lastOk) : null;
  const failed = c.lastError ? Date.parse(c.lastError.at) : null;
  if (ok === null && failed === null) return 'unknown';
  if (failed === null) return 'ok';
  if (ok === null) return 'failing';
  return ok >= failed ? 'ok' : 'failing';
}
