import { FindingSeverity } from '../agent/agent-types.js';
import type { ConfigReader, Location } from './config-reader.js';
import { SECURITY_SCAN } from './config-shape.js';
import { FAIL_THRESHOLDS, type FailThreshold, NO_FAIL_THRESHOLD, type ProjectConfig, type SecurityScanConfig, type ServiceConfig } from './service-config.js';

/**
 * A `security_scan:` block laid over `base` (the top-level block over the defaults, a project's
 * over the top-level one). A value that is not one of the thresholds is a blocking finding naming
 * the key, and the base's value stands.
 */
export function readSecurityScan(r: ConfigReader, where: Location, raw: unknown, base: SecurityScanConfig): SecurityScanConfig {
  const b = r.block(raw, where, SECURITY_SCAN);
  const out: SecurityScanConfig = { ...base };
  if (b.fail_on !== undefined && b.fail_on !== null) {
    const at = r.at(where, 'fail_on');
    const value = r.field(SECURITY_SCAN, b, where, 'fail_on');
    if (value !== null && SECURITY_SCAN.keys.fail_on.values.includes(value)) out.fail_on = value as FailThreshold;
    else if (value !== null) {
      r.problem(at, `${at.path} must be one of ${FAIL_THRESHOLDS.join(', ')}, not ${JSON.stringify(value)}; using ${base.fail_on}`);
    }
  }
  return out;
}

/**
 * The threshold a `security-scan` run of `project` fails at: the project's own `security_scan.fail_on`,
 * else the top-level one (default `high`). A project name the configuration does not know gets the top-level one.
 */
export function failThresholdFor(config: ServiceConfig, project: string | ProjectConfig | null | undefined): FindingSeverity | typeof NO_FAIL_THRESHOLD {
  const own = typeof project === 'string' ? config.projects[project] : project;
  return (own?.security_scan ?? config.security_scan).fail_on;
}

/** Severities from the most to the least severe. */
const SEVERITY_ORDER: readonly FindingSeverity[] = Object.values(FindingSeverity);

/** Whether a finding of `severity` fails a scan whose threshold is `threshold` (at or above it; never for `none`). */
export function reachesFailThreshold(severity: FindingSeverity, threshold: FailThreshold): boolean {
  if (threshold === NO_FAIL_THRESHOLD) return false;
  return SEVERITY_ORDER.indexOf(severity) <= SEVERITY_ORDER.indexOf(threshold);
}
