import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Permission } from '../../src/auth/permission.js';
import { OidcAuthority } from '../stand-ins/oidc-authority.js';
import { type Route, routesOf } from '../support/registered-routes.js';
import { type AuthBench, bearer, bootApp, createAuthBench } from './support/auth-harness.js';

/**
 * Every real route that declares permissions, called with enforcement on: without a token it is
 * a 401, and with a valid token holding no role it is a 403 whose body names exactly what the
 * route declares (the guard refuses before any parameter is read, so any id will do).
 */
let idp: OidcAuthority;
let bench: AuthBench;
let app: NestFastifyApplication;
let guarded: (Route & { declared: { kind: 'permissions'; permissions: string[] } })[];

const urlOf = (route: Route) => route.nestPath.replace(/:[A-Za-z0-9_]+/g, '00000000-0000-4000-8000-000000000000');
const call = (route: Route, token?: string) =>
  app.inject({ method: route.method.toUpperCase() as 'GET', url: urlOf(route), headers: token === undefined ? {} : bearer(token) });

beforeAll(async () => {
  idp = await OidcAuthority.start();
  bench = await createAuthBench('auth_refusals');
  app = await bootApp(bench.environment({
    SERVICE_AUTH_AUTHORITY: idp.authority, SERVICE_AUTH_AUDIENCE: idp.defaultAudience, SERVICE_AUTH_ENFORCE: 'true',
  }));
  guarded = routesOf(app).filter((r): r is typeof guarded[number] => r.declared.kind === 'permissions');
});

afterAll(async () => {
  await app?.close();
  await bench?.cleanup();
  await idp?.stop();
});

describe('the refusal of every guarded route', () => {
  it('walks the run routes of this release', () => {
    const names = guarded.map((r) => `${r.method} ${r.nestPath}`);
    for (const expected of ['get /api/runs', 'get /api/runs/:id', 'get /api/runs/:id/events', 'get /api/runs/statistics', 'get /api/pull-requests',
      'get /api/runs/:id/artifacts', 'get /api/runs/:id/artifacts/:name',
      'post /api/runs/:id/cancel', 'post /api/runs/:id/answer', 'post /api/runs/:id/retry', 'delete /api/runs/:id', 'delete /api/runs']) {
      expect(names).toContain(expected);
    }
  });

  it('declares what the route table of the contract gives each route of this release', () => {
    const CONTRACT: Record<string, string[]> = {
      'get /api/identity': ['identity.read'],
      'get /api/runs': ['runs.read'], 'get /api/runs/:id': ['runs.read'], 'get /api/runs/:id/events': ['runs.read'],
      'get /api/runs/statistics': ['runs.read'], 'get /api/pull-requests': ['runs.read'],
      // Added for the dashboard (issue 25): runs.read like the run detail and the statistics.
      'get /api/runs/:id/question': ['runs.read'], 'get /api/runs/statistics/series': ['runs.read'],
      'get /api/runs/:id/artifacts': ['runs.read'], 'get /api/runs/:id/artifacts/:name': ['runs.read'],
      'post /api/runs/:id/cancel': ['runs.control'], 'post /api/runs/:id/answer': ['runs.control'], 'post /api/runs/:id/retry': ['runs.control'],
      'delete /api/runs/:id': ['runs.delete'], 'delete /api/runs': ['runs.delete'],
      'post /api/projects/:name/init': ['projects.init'],
      'get /api/access': ['access.read'], 'get /api/access/people': ['access.read'], 'get /api/access/groups': ['access.read'],
      'get /api/access/roles': ['access.read'],
      'put /api/access/people/:claim/:value': ['access.write'], 'delete /api/access/people/:claim/:value': ['access.write'],
      'put /api/access/groups/:value': ['access.write'], 'put /api/access/roles/:name': ['access.write'],
      'delete /api/access/roles/:name': ['access.write'], 'put /api/access/claims': ['access.write'],
      'get /api/secrets': ['secrets.read'], 'put /api/secrets/:name': ['secrets.write'], 'delete /api/secrets/:name': ['secrets.write'],
      'get /api/config/changes': ['config.read', 'secrets.read'], 'post /api/config/changes/:id/revert': ['config.write', 'secrets.write'],
      'get /api/config': ['config.read'], 'get /api/config/settings': ['config.read'], 'get /api/config/settings/:key': ['config.read'],
      'put /api/config/settings/:key': ['config.write'], 'delete /api/config/settings/:key': ['config.write'],
      'get /api/config/export': ['config.export', 'secrets.read'], 'post /api/config/import': ['config.import', 'secrets.write'],
      'get /api/archive': ['archive.export'], 'post /api/archive': ['archive.import'],
      'get /api/diagnostics/connections': ['diagnostics.read'], 'post /api/diagnostics/probe': ['diagnostics.probe'],
      'post /api/diagnostics/probe-candidate': ['config.write', 'diagnostics.probe'],
      // The design dialogue (issue 29): filing with `start: true` also needs runs.control, checked in the handler.
      'post /api/dialog': ['dialog.write'], 'get /api/dialog': ['dialog.write'], 'get /api/dialog/:id': ['dialog.write'],
      'post /api/dialog/:id/file': ['dialog.write'],
      'get /api/catalog': ['catalog.read'], 'get /api/catalog/skills/:name': ['catalog.read'],
    };
    const declared = Object.fromEntries(guarded.map((r) => [`${r.method} ${r.nestPath}`, [...r.declared.permissions].sort()]));
    expect(declared).toEqual(CONTRACT);
  });

  it('is a 401 with WWW-Authenticate without a token', async () => {
    for (const route of guarded) {
      const res = await call(route);
      expect(res.statusCode, `${route.method} ${route.nestPath}`).toBe(401);
      expect(res.headers['www-authenticate'], route.nestPath).toMatch(/^Bearer/);
    }
  });

  it('is a 403 naming exactly the declared permissions for a caller without roles', async () => {
    const token = idp.mint({ sub: 'no-roles' });
    for (const route of guarded) {
      const res = await call(route, token);
      const where = `${route.method} ${route.nestPath}`;
      const declared = route.declared.permissions.filter((p) => p !== Permission.IdentityRead);
      if (declared.length === 0) {
        expect(res.statusCode, where).not.toBe(403); // identity.read: every validated caller holds it
        continue;
      }
      expect(res.statusCode, where).toBe(403);
      const body = res.json<{ error: string; missingPermissions: string[] }>();
      expect(Object.keys(body).sort(), where).toEqual(['error', 'missingPermissions']);
      expect([...body.missingPermissions].sort(), where).toEqual([...declared].sort());
      for (const permission of declared) expect(body.error, where).toContain(permission);
    }
  });
});
