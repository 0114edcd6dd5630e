import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootApp } from '../support/test-app.js';
import { createTestEnv, type TestEnv } from '../support/test-env.js';

interface FindingsBody { findings: { subsystem: string; severity: string; reason: string }[] }

/** A built app of its own: the server serves whatever Vite wrote, so this bundle stands in for it. */
function fixtureBundle(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dashboard-bundle-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><html><head><script type="module" src="/assets/app-abc123.js"></script></head><body><div id="root"></div></body></html>');
  writeFileSync(join(dir, 'assets', 'app-abc123.js'), 'console.log("app")');
  writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(join(dir, 'build.json'), JSON.stringify({ build: 'build-one' }));
  return dir;
}

describe('the dashboard on the API listener', () => {
  let env: TestEnv;
  let app: NestFastifyApplication;
  let bundle: string;

  beforeAll(async () => {
    bundle = fixtureBundle();
    env = createTestEnv('dashboard-serving', {
      store: false,
      vars: {
        SERVICE_AUTH_AUTHORITY: 'http://127.0.0.1:9/authority',
        SERVICE_AUTH_AUDIENCE: 'api://pipeline',
        SERVICE_AUTH_CLIENT_ID: 'dashboard-spa',
      },
    });
    app = await bootApp(env.env, { dashboardDir: bundle });
  });

  afterAll(async () => {
    await app?.close();
    env?.remove();
    rmSync(bundle, { recursive: true, force: true });
  });

  it('answers the app for any deep link that accepts HTML, with a strict policy and no caching', async () => {
    for (const url of ['/', '/runs', '/runs/0b7c6a5e-4a8e-4c55-9d1e-2f3a4b5c6d7e?line=4', '/access/people', '/signin-callback?code=x&state=y']) {
      const res = await app.inject({ method: 'GET', url, headers: { accept: 'text/html,application/xhtml+xml' } });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toContain('text/html');
      expect(res.body).toContain('<div id="root">');
      expect(res.headers['cache-control']).toBe('no-cache');
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("style-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toContain("frame-ancestors 'none'");
      // The sign-in's token calls go to the authority's origin, and nowhere else.
      expect(csp).toMatch(/connect-src 'self' http:\/\/127\.0\.0\.1:9(;|$)/);
    }
  });

  it('never answers the app where the server has its own routes', async () => {
    for (const url of ['/api/no-such-route', '/health/nope', '/metrics/x', '/webhook/nope', '/hub/nope', '/assets/missing.js']) {
      const res = await app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
      expect(res.statusCode, url).toBe(404);
      expect(res.body).not.toContain('<div id="root">');
    }
    const api = await app.inject({ method: 'GET', url: '/api/no-such-route', headers: { accept: 'text/html' } });
    expect(api.headers['content-type']).toContain('application/json');
    // A script asking for JSON outside those paths gets a 404, not a page.
    const json = await app.inject({ method: 'GET', url: '/runs', headers: { accept: 'application/json' } });
    expect(json.statusCode).toBe(404);
  });

  it('serves hashed assets as immutable for a year, and top-level files for a day', async () => {
    const asset = await app.inject({ method: 'GET', url: '/assets/app-abc123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const icon = await app.inject({ method: 'GET', url: '/favicon.svg' });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['cache-control']).toBe('public, max-age=86400');
    const traversal = await app.inject({ method: 'GET', url: '/assets/..%2F..%2Fpackage.json' });
    expect(traversal.statusCode).toBeGreaterThanOrEqual(400);
  });

  it('tells the app how to sign in, publicly, with the defaults of the contract', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/dashboard/settings' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      authority: 'http://127.0.0.1:9/authority',
      clientId: 'dashboard-spa',
      scopes: 'openid profile offline_access',
      redirectPath: '/signin-callback',
      audience: 'api://pipeline',
      build: 'build-one',
    });
  });

  it('raises the build finding for a tab of another build, and names the server build back', async () => {
    const same = await app.inject({ method: 'GET', url: '/api/config/findings', headers: { 'x-dashboard-build': 'build-one' } });
    expect(same.headers['x-dashboard-build']).toBe('build-one');
    expect((same.json() as FindingsBody).findings.filter((f) => f.subsystem === 'build')).toEqual([]);

    const stale = await app.inject({ method: 'GET', url: '/api/dashboard/settings', headers: { 'x-dashboard-build': 'build-zero' } });
    expect(stale.headers['x-dashboard-build']).toBe('build-one');
    const findings = (await app.inject({ method: 'GET', url: '/api/config/findings' })).json() as FindingsBody;
    const build = findings.findings.filter((f) => f.subsystem === 'build');
    expect(build).toHaveLength(1);
    expect(build[0]!.severity).toBe('advisory');
    expect(build[0]!.reason).toContain('build-zero');
    expect(build[0]!.reason).toContain('build-one');
  });
});
