import { type Finding, FindingSubsystem, finding } from '../findings/finding.js';
import { type AuthConfig, DEFAULT_AUTH_CLAIMS, type ServiceConfig } from './service-config.js';

/**
 * Spec: "the authority, the audience and `enforce` are bootstrap settings and need a restart".
 * The token validator is built from them once at start, so a reload must not make the rest of the
 * server believe in other values than the ones validating tokens.
 */
export const BOOTSTRAP_FIELDS = ['authority', 'audience', 'enforce'] as const;
export type BootstrapField = (typeof BOOTSTRAP_FIELDS)[number];
export type BootstrapValues = { [F in BootstrapField]: AuthConfig[F] };

export interface BootstrapSetting {
  /** `auth.authority`, `auth.audience`, `auth.enforce`. */
  key: string;
  /** What the server started with and still uses. */
  inForce: string | boolean | null;
  /** What the file and environment say now. */
  configured: string | boolean | null;
  restartDue: boolean;
}

export function bootstrapValuesOf(config: ServiceConfig): BootstrapValues {
  return { authority: config.auth?.authority ?? null, audience: config.auth?.audience ?? null, enforce: config.auth?.enforce ?? false };
}

/**
 * Puts the start values back into a freshly loaded configuration (in place) and says which ones the
 * file or environment would change: each such field is an advisory finding until the file goes back
 * or the server restarts. A block the reload removed or added keeps its other (live) fields.
 */
export function pinBootstrapSettings(config: ServiceConfig, boot: BootstrapValues): { settings: BootstrapSetting[]; findings: Finding[] } {
  const configured = bootstrapValuesOf(config);
  const settings = BOOTSTRAP_FIELDS.map((field): BootstrapSetting => ({
    key: `auth.${field}`, inForce: boot[field], configured: configured[field], restartDue: configured[field] !== boot[field],
  }));
  const startedWithout = boot.authority === null && boot.audience === null && boot.enforce === false;
  if (config.auth === null && !startedWithout) config.auth = { ...DEFAULT_AUTH_CLAIMS, group_roles: {}, roles: {}, client_id: null, scopes: null, redirect_path: null, ...boot };
  else if (config.auth !== null) Object.assign(config.auth, boot);
  const findings = settings.filter((s) => s.restartDue).map((s) => finding(FindingSubsystem.Configuration, 'advisory',
    `${s.key} changed in the configuration, but it is a bootstrap setting: the value the server started with stays in force until a restart`,
    { field: s.key }));
  return { settings, findings };
}
