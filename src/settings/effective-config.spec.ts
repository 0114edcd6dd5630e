import { describe, expect, it } from 'vitest';
import { bootstrapValuesOf, pinBootstrapSettings } from '../config/bootstrap-settings.js';
import type { SecretField } from '../config/config-reader.js';
import { readEnvironment } from '../config/environment.js';
import { buildConfig } from '../config/load-service-config.js';
import { effectiveConfig, strongestSource } from './effective-config.js';
import { withSettings } from './settings-document.js';

const REPO = { name: 'web', platform: 'platform-a', url: 'https://github.com/acme/web' };

function view(file: Record<string, unknown>, settings: Record<string, unknown> = {}, variables: Record<string, string> = {}, stored: Record<string, string> = {}) {
  const env = readEnvironment(variables);
  const document = withSettings(file, settings);
  const fields: SecretField[] = [];
  const config = buildConfig(document, env, [], stored, fields);
  const { settings: bootstrap } = pinBootstrapSettings(config, bootstrapValuesOf(config));
  return effectiveConfig({ document, settings, env, config, secretFields: fields.map((f) => f.path), bootstrap });
}
const leaf = (v: ReturnType<typeof view>, key: string) => v.leaves.find((l) => l.key === key);

describe('effectiveConfig', () => {
  it('says where each value comes from: default, file, store or environment', () => {
    const v = view(
      { queue: { max_parallel_runs: 2, heartbeat_ttl_seconds: 90 }, projects: { shop: { tracker: 'platform-a', repos: [{ ...REPO, auth_secret: '${TOKEN}' }] } } },
      { 'queue.max_parallel_runs': 8 },
      { SERVICE_AUTH_AUTHORITY: 'https://idp.example', TOKEN: 'ghp_from_the_environment' },
    );
    expect(leaf(v, 'queue.max_parallel_runs')).toEqual({ key: 'queue.max_parallel_runs', value: 8, source: 'store' });
    expect(leaf(v, 'queue.heartbeat_ttl_seconds')).toEqual({ key: 'queue.heartbeat_ttl_seconds', value: 90, source: 'file' });
    expect(leaf(v, 'queue.lease_ttl_seconds')).toEqual({ key: 'queue.lease_ttl_seconds', value: 30, source: 'default' });
    expect(leaf(v, 'sandbox.memory')).toMatchObject({ value: '2Gi', source: 'default' });
    expect(leaf(v, 'auth.authority')).toEqual({ key: 'auth.authority', value: 'https://idp.example', source: 'environment', variable: 'SERVICE_AUTH_AUTHORITY', bootstrap: true });
    expect(leaf(v, 'auth.role_claim')).toMatchObject({ value: 'roles', source: 'default' });
    expect(leaf(v, 'projects.shop.repos[0].auth_secret')).toEqual({
      key: 'projects.shop.repos[0].auth_secret', value: '${TOKEN}', source: 'environment', references: [{ name: 'TOKEN', from: 'environment' }],
    });
    expect(leaf(v, 'projects.shop.repos[0].url')).toMatchObject({ source: 'file' });
    expect(strongestSource(v.leaves.filter((l) => l.key.startsWith('queue.')))).toBe('store');
  });

  it('never shows a secret: literals at secret fields are masked, the secrets block by name, known values scrubbed', () => {
    const v = view(
      {
        secrets: { SHOP_TOKEN: 'ghp_block_value_1234' },
        webhooks: { platform_b_secret: 'literal-webhook-secret' },
        agent: { api_key: 'sk-literal-key' },
        projects: {
          shop: { tracker: 'platform-a', repos: [{ ...REPO, auth_secret: '${SHOP_TOKEN}' }, { name: 'broken', auth_secret: 'ghp_in_a_broken_entry' }] },
          docs: { tracker: 'platform-a', repos: [{ ...REPO, url: 'https://x:ghp_block_value_1234@github.com/acme/docs', auth_secret: '${STORED}' }] },
        },
      },
      {},
      { PLATFORM_A_WEBHOOK_SECRET: 'env-webhook-secret' },
      { STORED: 'stored-secret-value' },
    );
    const text = JSON.stringify(v);
    for (const secret of ['ghp_block_value_1234', 'literal-webhook-secret', 'sk-literal-key', 'ghp_in_a_broken_entry', 'env-webhook-secret', 'stored-secret-value']) expect(text).not.toContain(secret);
    expect(v.secretNames).toEqual({ file: ['SHOP_TOKEN'], stored: ['STORED'] });
    expect(leaf(v, 'projects.shop.repos[0].auth_secret')).toMatchObject({ value: '${SHOP_TOKEN}', source: 'file', references: [{ name: 'SHOP_TOKEN', from: 'secrets-block' }] });
    expect(leaf(v, 'projects.docs.repos[0].auth_secret')).toMatchObject({ value: '${STORED}', references: [{ name: 'STORED', from: 'stored-secret' }] });
    expect(leaf(v, 'webhooks.platform_a_secret')).toEqual({ key: 'webhooks.platform_a_secret', value: '***', source: 'environment', variable: 'PLATFORM_A_WEBHOOK_SECRET' });
    expect(leaf(v, 'webhooks.platform_b_secret')).toMatchObject({ value: '***', source: 'file' });
    expect(leaf(v, 'agent.api_key')).toMatchObject({ value: '***' });
    expect(leaf(v, 'projects.docs.repos[0].url')?.value).toBe('https://x:***@github.com/acme/docs');
    expect(v.leaves.some((l) => l.key.startsWith('secrets'))).toBe(false);
  });

  it('flags the bootstrap settings, with the value in force and the one configured when a restart is due', () => {
    const env = readEnvironment({});
    const started = buildConfig({ auth: { authority: 'https://idp.example', audience: 'svc' } }, env, []);
    const document = { auth: { authority: 'https://other.example', audience: 'svc' } };
    const config = buildConfig(document, env, []);
    const { settings: bootstrap } = pinBootstrapSettings(config, bootstrapValuesOf(started));
    const v = effectiveConfig({ document, settings: {}, env, config, secretFields: [], bootstrap });
    expect(v.leaves.filter((l) => l.bootstrap)).toEqual([
      { key: 'auth.audience', value: 'svc', source: 'file', bootstrap: true },
      { key: 'auth.authority', value: 'https://idp.example', source: 'file', bootstrap: true, restartDue: true, configured: 'https://other.example' },
      { key: 'auth.enforce', value: false, source: 'default', bootstrap: true },
    ]);
  });
});
