import { describe, expect, it } from 'vitest';
import { bootstrapValuesOf, pinBootstrapSettings } from './bootstrap-settings.js';
import { buildConfig } from './load-service-config.js';
import { readEnvironment } from './environment.js';

const load = (raw: unknown) => buildConfig(raw, readEnvironment({}), []);
const started = load({ auth: { authority: 'https://idp.example', audience: 'svc', enforce: true, name_claim: 'email' } });
const boot = bootstrapValuesOf(started);

describe('pinBootstrapSettings', () => {
  it('keeps the start values and says a restart is due for each one the file changed', () => {
    const reloaded = load({ auth: { authority: 'https://other.example', audience: 'svc', enforce: false, name_claim: 'upn' } });
    const { settings, findings } = pinBootstrapSettings(reloaded, boot);
    expect(reloaded.auth).toMatchObject({ authority: 'https://idp.example', audience: 'svc', enforce: true, name_claim: 'upn' });
    expect(settings).toEqual([
      { key: 'auth.authority', inForce: 'https://idp.example', configured: 'https://other.example', restartDue: true },
      { key: 'auth.audience', inForce: 'svc', configured: 'svc', restartDue: false },
      { key: 'auth.enforce', inForce: true, configured: false, restartDue: true },
    ]);
    expect(findings.map((f) => [f.subsystem, f.severity, f.field])).toEqual([['configuration', 'advisory', 'auth.authority'], ['configuration', 'advisory', 'auth.enforce']]);
    expect(findings[0]!.reason).toContain('restart');
  });

  it('says nothing once the file is back', () => {
    const reloaded = load({ auth: { authority: 'https://idp.example', audience: 'svc', enforce: true } });
    expect(pinBootstrapSettings(reloaded, boot).findings).toEqual([]);
  });

  it('keeps enforcement when the block is removed, and keeps a server that started without one unauthenticated', () => {
    const removed = load({});
    expect(pinBootstrapSettings(removed, boot).findings).toHaveLength(3);
    expect(removed.auth).toMatchObject({ authority: 'https://idp.example', audience: 'svc', enforce: true, name_claim: 'sub' });
    const added = load({ auth: { authority: 'https://idp.example', audience: 'svc' } });
    expect(pinBootstrapSettings(added, bootstrapValuesOf(load({}))).findings.map((f) => f.field)).toEqual(['auth.authority', 'auth.audience']);
    expect(added.auth).toMatchObject({ authority: null, audience: null, enforce: false });
    const none = load({});
    pinBootstrapSettings(none, bootstrapValuesOf(load({})));
    expect(none.auth).toBeNull();
  });
});
