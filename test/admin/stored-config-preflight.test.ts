import { randomBytes } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreflightService } from '../../src/health/preflight.service.js';
import { OidcAuthority } from '../stand-ins/oidc-authority.js';
import { type AuthBench, bearer, bootApp, createAuthBench, eventually } from '../auth/support/auth-harness.js';

/**
 * The startup checks follow the configuration after start: a repository token that only a stored
 * secret can give fails the `configuration` check at start, and the check passes once the secret
 * is saved, without a restart (the configuration's probes run again on every reload).
 */
let idp: OidcAuthority;
let bench: AuthBench;
let app: NestFastifyApplication;
let root: string;

const configurationCheck = () => app.get(PreflightService).list().find((c) => c.name === 'configuration');

beforeAll(async () => {
  idp = await OidcAuthority.start();
  bench = await createAuthBench('stored_preflight');
  bench.writeConfig({
    sandbox: { backend: 'in-process' },
    projects: { shop: { tracker: 'platform-a', repos: [{ name: 'shop-web', platform: 'platform-a', url: 'https://github.com/acme/shop-web', auth_secret: '${PREFLIGHT_TOKEN}' }] } },
  });
  app = await bootApp(bench.environment({
    SERVICE_AUTH_AUTHORITY: idp.authority, SERVICE_AUTH_AUDIENCE: idp.defaultAudience, SERVICE_AUTH_ENFORCE: 'true',
    SERVICE_ADMIN_GRANT: 'sub:root', SERVICE_SECRETS_KEY: randomBytes(32).toString('base64'),
  }));
  root = idp.mint({ sub: 'root' });
}, 60_000);

afterAll(async () => {
  await app?.close();
  await bench?.cleanup();
  await idp?.stop();
});

describe('startup checks after a stored secret is saved', () => {
  it('fail the configuration check while the token is missing, and pass it once the secret is stored', async () => {
    expect(configurationCheck()).toMatchObject({ status: 'fail' });
    const health = await app.inject({ method: 'GET', url: '/health' });
    expect(health.json().preflight.failures.map((f: { name: string }) => f.name)).toContain('configuration');

    const put = await app.inject({ method: 'PUT', url: '/api/secrets/PREFLIGHT_TOKEN', headers: bearer(root), payload: { value: `ghp_${randomBytes(8).toString('hex')}` } });
    expect(put.statusCode).toBe(200);
    await eventually(async () => (configurationCheck()?.status === 'pass' ? true : undefined), 5_000, 'the configuration check to pass');
    const after = await app.inject({ method: 'GET', url: '/health' });
    expect(after.json().preflight.failures.map((f: { name: string }) => f.name)).not.toContain('configuration');

    // And back: removing the reference's secret is refused while used, so unset it through the file instead.
    bench.writeConfig({
      sandbox: { backend: 'in-process' },
      projects: { shop: { tracker: 'platform-a', repos: [{ name: 'shop-web', platform: 'platform-a', url: 'https://github.com/acme/shop-web', auth_secret: '${ABSENT_TOKEN}' }] } },
    });
    await eventually(async () => (configurationCheck()?.status === 'fail' ? true : undefined), 10_000, 'the configuration check to fail again after the file edit');
  });
});
