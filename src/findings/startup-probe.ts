import type { PreflightCheck } from '../health/preflight.js';
import type { Finding, FindingSubsystem } from './finding.js';

export interface ProbeOutcome {
  findings: Finding[];
  check: PreflightCheck;
}

/** One startup question (spec: "Startup subsystems probed"). */
export interface StartupProbe {
  readonly name: string;
  readonly subsystem: FindingSubsystem;
  readonly category: string;
  run(): Promise<ProbeOutcome>;
}

/** The preflight check a probe's findings imply: it fails when any of them blocks. */
export function checkFrom(probe: Pick<StartupProbe, 'name' | 'category'>, findings: Finding[], passMessage: string, fixHint = ''): PreflightCheck {
  const blocking = findings.find((f) => f.severity === 'blocking');
  return {
    name: probe.name,
    category: probe.category,
    status: blocking ? 'fail' : 'pass',
    message: blocking ? blocking.reason : findings[0]?.reason ?? passMessage,
    fix_hint: blocking ? fixHint : '',
  };
}
