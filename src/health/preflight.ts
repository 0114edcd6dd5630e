/** One preflight check: the `doctor` checks plus server-only ones such as `sign-in`. */
export interface PreflightCheck {
  name: string;
  category: string;
  status: 'pass' | 'fail' | 'skip';
  message: string;
  fix_hint: string;
}

export interface PreflightReport {
  status: 'pending' | 'pass' | 'fail';
  completed_at_utc: string | null;
  passed: number;
  failed: number;
  skipped: number;
  failures: { name: string; message: string; fix_hint: string }[];
}

export function reportOf(checks: PreflightCheck[] | null, completedAt: Date | null): PreflightReport {
  if (checks === null) {
    return { status: 'pending', completed_at_utc: null, passed: 0, failed: 0, skipped: 0, failures: [] };
  }
  const failures = checks.filter((c) => c.status === 'fail');
  return {
    status: failures.length > 0 ? 'fail' : 'pass',
    completed_at_utc: completedAt?.toISOString() ?? null,
    passed: checks.filter((c) => c.status === 'pass').length,
    failed: failures.length,
    skipped: checks.filter((c) => c.status === 'skip').length,
    failures: failures.map(({ name, message, fix_hint }) => ({ name, message, fix_hint })),
  };
}
