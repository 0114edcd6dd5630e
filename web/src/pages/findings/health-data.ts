import type { Finding } from '../../api/types';

/** `GET /health` (public): the startup checks and each background subsystem's state. */
export interface HealthResponse {
  status: 'ok' | 'degraded';
  timestamp: string;
  preflight: {
    status: 'pending' | 'pass' | 'fail';
    completed_at_utc: string | null;
    passed: number;
    failed: number;
    skipped: number;
    failures: { name: string; message: string; fix_hint: string }[];
  };
  subsystems: { name: string; state: 'up' | 'degraded' | 'down' | 'disabled'; reason: string; last_changed_utc: string }[];
}

const SEVERITY_ORDER: Record<string, number> = { blocking: 0, advisory: 1 };
const STATE_ORDER: Record<string, number> = { down: 0, degraded: 1, disabled: 2, up: 3 };

/** Blocking first, then by subsystem and project, so the same findings keep their places across polls. */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  return [...findings].sort((a, b) =>
    (SEVERITY_ORDER[a.severity] ?? 2) - (SEVERITY_ORDER[b.severity] ?? 2)
    || a.subsystem.localeCompare(b.subsystem)
    || (a.project ?? '').localeCompare(b.project ?? '')
    || a.reason.localeCompare(b.reason));
}

/** Down first, then degraded, disabled, up. */
export function sortSubsystems<T extends { name: string; state: string }>(subsystems: readonly T[]): T[] {
  return [...subsystems].sort((a, b) => (STATE_ORDER[a.state] ?? 4) - (STATE_ORDER[b.state] ?? 4) || a.name.localeCompare(b.name));
}

/** Nothing to look at: no finding, the startup checks passed, every subsystem up or switched off on purpose. */
export function nothingWrong(findings: readonly Finding[] | undefined, health: HealthResponse | undefined): boolean {
  if (!findings || !health) return false;
  return findings.length === 0 && health.preflight.status === 'pass' && health.subsystems.every((s) => s.state === 'up' || s.state === 'disabled');
}
