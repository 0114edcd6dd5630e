/** The spec's response bodies as the end-to-end tests read them. */
export interface HealthBody {
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
  subsystems: { name: string; state: string; reason: string; last_changed_utc: string }[];
}

export interface FindingBody {
  subsystem: string;
  severity: 'blocking' | 'advisory';
  reason: string;
  project: string | null;
  trigger: string | null;
  field: string | null;
}

export interface FindingsBody {
  degraded: boolean;
  blocking: number;
  advisory: number;
  findings: FindingBody[];
}

export function subsystemState(body: HealthBody, name: string): string | undefined {
  return body.subsystems.find((s) => s.name === name)?.state;
}
