import { describe, expect, it } from 'vitest';
import type { Finding } from '../findings/finding.js';
import { readEnvironment } from './environment.js';
import { buildConfig } from './load-service-config.js';

const REPO = { name: 'shop-web', platform: 'platform-a', url: 'https://github.com/acme/shop-web', auth_secret: 'ghp_repo_token' };

function load(trigger: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const findings: Finding[] = [];
  const config = buildConfig({
    projects: { shop: { tracker: 'platform-a', repos: [REPO], platform_a_trigger: { trigger_statuses: ['ready'], default_pipeline: 'lint', ...trigger }, ...extra } },
    pipelines: { lint: { commands: ['true'] } },
  }, readEnvironment({}), findings);
  const polling = (platform = 'platform-a' as const) => config.projects.shop?.triggers[platform]?.polling;
  return { polling, findings: findings.filter((f) => f.field?.includes('polling')) };
}

describe('polling: in a trigger block', () => {
  it('is null when absent (webhooks only), off with a 60 s interval by default', () => {
    expect(load({}).polling()).toBeNull();
    expect(load({ polling: {} }).polling()).toEqual({ enabled: false, interval_seconds: 60 });
    expect(load({ polling: { enabled: true } })).toEqual(expect.objectContaining({ findings: [] }));
    expect(load({ polling: { enabled: true } }).polling()).toEqual({ enabled: true, interval_seconds: 60 });
  });

  it('reads an interval of 10 s or more', () => {
    expect(load({ polling: { enabled: true, interval_seconds: 10 } }).polling()).toEqual({ enabled: true, interval_seconds: 10 });
    expect(load({ polling: { enabled: 'true', interval_seconds: '300' } }).polling()).toEqual({ enabled: true, interval_seconds: 300 });
  });

  it('an interval under 10 or not an integer is a finding naming the key, and the default applies', () => {
    for (const bad of [9, 0, 12.5, 'soon', -60]) {
      const { polling, findings } = load({ polling: { enabled: true, interval_seconds: bad } });
      expect(polling()).toEqual({ enabled: true, interval_seconds: 60 });
      expect(findings).toEqual([expect.objectContaining({
        subsystem: 'configuration', severity: 'blocking', project: 'shop', trigger: 'platform_a_trigger',
        field: 'projects.shop.platform_a_trigger.polling.interval_seconds',
      })]);
    }
  });

  it('an unknown key is an advisory finding', () => {
    const { findings } = load({ polling: { enabled: true, every: 5 } });
    expect(findings).toEqual([expect.objectContaining({ severity: 'advisory', field: 'projects.shop.platform_a_trigger.polling.every' })]);
  });

  it('is advisory-flagged where it can do nothing: another platform\'s block, or no trigger to ask for', () => {
    const elsewhere = load({}, { platform_b_trigger: { trigger_statuses: ['ready'], polling: { enabled: true } } });
    expect(elsewhere.findings).toEqual([expect.objectContaining({ severity: 'advisory', field: 'projects.shop.platform_b_trigger.polling.enabled' })]);
    const empty = load({ trigger_statuses: [], polling: { enabled: true } });
    expect(empty.findings).toEqual([expect.objectContaining({ severity: 'advisory', field: 'projects.shop.platform_a_trigger.polling.enabled' })]);
  });

  it('may be on beside webhooks: nothing else in the block changes', () => {
    expect(load({ polling: { enabled: true }, comment_keyword: '@svc' }).findings).toEqual([]);
  });
});
