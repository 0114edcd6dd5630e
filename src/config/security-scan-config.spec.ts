import { describe, expect, it } from 'vitest';
import { FindingSeverity } from '../agent/agent-types.js';
import type { Finding } from '../findings/finding.js';
import { readEnvironment } from './environment.js';
import { buildConfig } from './load-service-config.js';
import { failThresholdFor, reachesFailThreshold } from './security-scan-config.reader.js';
import { FAIL_THRESHOLDS, type FailThreshold, type ServiceConfig } from './service-config.js';

/** Parsed YAML + environment variables → the configuration and its findings (as the loader builds them). */
function build(raw: Record<string, unknown>, vars: Record<string, string> = {}): { config: ServiceConfig; findings: Finding[] } {
  const findings: Finding[] = [];
  return { config: buildConfig(raw, readEnvironment(vars), findings), findings };
}

const project = (extra: Record<string, unknown> = {}) => ({ tracker: 'platform-a', ...extra });

describe('security_scan.fail_on', () => {
  it('defaults to high, for the top level and every project, without findings', () => {
    const { config, findings } = build({ projects: { shop: project() } });
    expect(findings).toEqual([]);
    expect(config.security_scan).toEqual({ fail_on: 'high' });
    expect(config.projects.shop?.security_scan).toEqual({ fail_on: 'high' });
    expect(failThresholdFor(config, 'shop')).toBe('high');
    expect(failThresholdFor(config, null)).toBe('high');
  });

  it.each(FAIL_THRESHOLDS)('accepts %s at the top level; projects without their own inherit it', (value) => {
    const { config, findings } = build({ security_scan: { fail_on: value }, projects: { shop: project() } });
    expect(findings).toEqual([]);
    expect(failThresholdFor(config, 'shop')).toBe(value);
    expect(failThresholdFor(config, config.projects.shop)).toBe(value);
  });

  it('a project\'s own fail_on overrides the top level for that project only', () => {
    const { config, findings } = build({
      security_scan: { fail_on: 'critical' },
      projects: { shop: project({ security_scan: { fail_on: 'none' } }), docs: project(), strict: project({ security_scan: { fail_on: 'info' } }) },
    });
    expect(findings).toEqual([]);
    expect(failThresholdFor(config, 'shop')).toBe('none');
    expect(failThresholdFor(config, 'docs')).toBe('critical');
    expect(failThresholdFor(config, 'strict')).toBe('info');
    // A project the configuration does not know (removed since its run was claimed): the top level.
    expect(failThresholdFor(config, 'gone')).toBe('critical');
    expect(failThresholdFor(config, 'constructor')).toBe('critical');
  });

  it('an unknown top-level value is a blocking finding naming the key and the accepted values; high stands', () => {
    const { config, findings } = build({ security_scan: { fail_on: 'severe' }, projects: { shop: project() } });
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      subsystem: 'configuration', severity: 'blocking', field: 'security_scan.fail_on', project: null,
      reason: 'security_scan.fail_on must be one of critical, high, medium, low, info, none, not "severe"; using high',
    });
    expect(failThresholdFor(config, 'shop')).toBe('high');
  });

  it('an unknown project value is a blocking finding naming the project and key; the top-level value stands', () => {
    const { config, findings } = build({ security_scan: { fail_on: 'low' }, projects: { shop: project({ security_scan: { fail_on: 'HIGH' } }) } });
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      severity: 'blocking', project: 'shop', field: 'projects.shop.security_scan.fail_on',
      reason: 'projects.shop.security_scan.fail_on must be one of critical, high, medium, low, info, none, not "HIGH"; using low',
    });
    expect(failThresholdFor(config, 'shop')).toBe('low');
  });

  it.each([
    [3, '"3"'], [true, '"true"'], ['', null], ['critical ', '"critical "'],
  ])('refuses %j with a finding at the key (or treats an empty value as unset)', (value, shown) => {
    const { config, findings } = build({ security_scan: { fail_on: value } });
    expect(config.security_scan.fail_on).toBe('high');
    if (shown === null) expect(findings).toEqual([]);
    else expect(findings.map((f) => [f.field, f.reason])).toEqual([['security_scan.fail_on', expect.stringContaining(`not ${shown}; using high`)]]);
  });

  it('a list where a value belongs is a finding at the key', () => {
    const { config, findings } = build({ security_scan: { fail_on: ['high'] } });
    expect(config.security_scan.fail_on).toBe('high');
    expect(findings.map((f) => [f.field, f.reason])).toEqual([['security_scan.fail_on', 'security_scan.fail_on must be a string']]);
  });

  it('a block that is not a mapping, and an unknown key, are findings; the default stands', () => {
    const notMapping = build({ security_scan: 'high' });
    expect(notMapping.config.security_scan.fail_on).toBe('high');
    expect(notMapping.findings.map((f) => [f.field, f.severity, f.reason])).toEqual([['security_scan', 'blocking', 'security_scan must be a mapping; it was ignored']]);
    const unknown = build({ security_scan: { fail_at: 'low' } });
    expect(unknown.config.security_scan.fail_on).toBe('high');
    expect(unknown.findings.map((f) => [f.field, f.severity])).toEqual([['security_scan.fail_at', 'advisory']]);
  });

  it('null means unset, and ${NAME} references resolve like any other value', () => {
    expect(build({ security_scan: { fail_on: null } }).config.security_scan.fail_on).toBe('high');
    const { config, findings } = build({ security_scan: { fail_on: '${SCAN_FAIL_ON}' } }, { SCAN_FAIL_ON: 'medium' });
    expect(findings).toEqual([]);
    expect(config.security_scan.fail_on).toBe('medium');
  });

  it('a hand-built project without its own block gets the top level', () => {
    const { config } = build({ security_scan: { fail_on: 'low' }, projects: { shop: project() } });
    const { security_scan: _own, ...bare } = config.projects.shop!;
    expect(failThresholdFor(config, bare)).toBe('low');
  });
});

describe('reachesFailThreshold', () => {
  const severities = Object.values(FindingSeverity);

  it('fails at or above the threshold, most severe first', () => {
    const table = Object.fromEntries(FAIL_THRESHOLDS.map((threshold: FailThreshold) =>
      [threshold, severities.filter((severity) => reachesFailThreshold(severity, threshold))]));
    expect(table).toEqual({
      critical: ['critical'],
      high: ['critical', 'high'],
      medium: ['critical', 'high', 'medium'],
      low: ['critical', 'high', 'medium', 'low'],
      info: ['critical', 'high', 'medium', 'low', 'info'],
      none: [],
    });
  });
});
