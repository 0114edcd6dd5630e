/** Subsystems a finding can name (spec: "Findings response"). */
export const FindingSubsystem = {
  ConfigFile: 'config-file',
  Configuration: 'configuration',
  Database: 'database',
  Redis: 'redis',
  SandboxBackend: 'sandbox-backend',
  SandboxAgent: 'sandbox-agent',
  Auth: 'auth',
  Build: 'build',
  /** A project whose polling cannot work or is failing (raised by the `poller` lease holder). */
  Poller: 'poller',
  /** A skill left out of the catalog (malformed, too large) or a skills source that cannot be read. */
  Skills: 'skills',
  /** A chat platform that is half configured, or cannot be served (issue 30). */
  Chat: 'chat',
} as const;
export type FindingSubsystem = (typeof FindingSubsystem)[keyof typeof FindingSubsystem];

export type Severity = 'blocking' | 'advisory';

export interface Finding {
  subsystem: FindingSubsystem;
  severity: Severity;
  reason: string;
  project: string | null;
  trigger: string | null;
  field: string | null;
}

export function finding(
  subsystem: FindingSubsystem,
  severity: Severity,
  reason: string,
  where: { project?: string | null; trigger?: string | null; field?: string | null } = {},
): Finding {
  return {
    subsystem,
    severity,
    reason,
    project: where.project ?? null,
    trigger: where.trigger ?? null,
    field: where.field ?? null,
  };
}
