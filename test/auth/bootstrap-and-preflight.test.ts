import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AccessBootstrapImport } from '../../src/access/access-bootstrap-import.service.js';
import type { HealthResponse } from '../../src/health/health-responses.js';
import { PreflightService } from '../../src/health/preflight.service.js';
import { OidcAuthority } from '../stand-ins/oidc-authority.js';
import { type AuthBench, bearer, bootApp, createAuthBench, eventually } from './support/auth-harness.js';
import type { IdentityBody } from './support/identity-types.js';

/**
 * Spec rule 13 / contract: `auth.group_roles` and `auth.roles` in service.yml are imported once,
 * on the first boot that sees them; afterwards the database is authoritative and the file copy is
 * ignored. And the `sign-in` preflight check (category auth) on /health, over successive boots.
 */
describe('bootstrap import of access settings and the sign-in preflight (successive boots, one database)', () => {
  let idp: OidcAuthority;
  let bench: AuthBench;
  let app: NestFastifyApplication | null = null;

  const boot = async (auth: Record<string, unknown>, variables: Record<string, string> = {}): Promise<NestFastifyApplication> => {
    bench.writeConfig({ sandbox: { backend: 'in-process' }, auth: { authority: idp.authority, audience: idp.defaultAudience, enforce: true, ...auth } });
    app = await bootApp(bench.environment(variables));
    return app;
  };
  const identity = async (claims: Record<string, unknown>, sub = 'user-123'): Promise<IdentityBody> => {
    if (!app) throw new Error('no app');
    const res = await app.inject({ method: 'GET', url: '/api/identity', headers: bearer(idp.mint({ sub, claims })) });
    expect(res.statusCode).toBe(200);
    return res.json<IdentityBody>();
  };
  const health = async (): Promise<HealthResponse> => {
    if (!app) throw new Error('no app');
    return (await app.inject({ method: 'GET', url: '/health' })).json<HealthResponse>();
  };
  const signIn = () => app?.get(PreflightService).list().find((c) => c.name === 'sign-in');
  const rows = async <T extends object>(sql: string): Promise<T[]> => (await bench.db.query<T>(sql)).rows;

  beforeAll(async () => {
    idp = await OidcAuthority.start();
    bench = await createAuthBench('auth_bootstrap');
  });
  afterEach(async () => {
    await app?.close();
    app = null;
  });
  afterAll(async () => {
    await bench?.cleanup();
    await idp?.stop();
  });

  it('first boot: imports group_roles and roles once; sign-in fails (nobody accepted yet) and is listed on /health', async () => {
    await boot({
      group_roles: { '/platform-admins': ['Admin'], ops: ['operator'] },
      roles: { Auditor: ['runs.read', 'diagnostics.read'] },
    });
    await eventually(async () => ((await rows(`SELECT 1 FROM access_markers WHERE name = 'auth-bootstrap-import'`)).length > 0 ? true : undefined), 10_000, 'import marker');
    expect(await rows(`SELECT group_value, roles, updated_by FROM access_group_roles ORDER BY group_value`)).toEqual([
      { group_value: 'ops', roles: ['operator'], updated_by: 'bootstrap-import' },
      { group_value: 'platform-admins', roles: ['admin'], updated_by: 'bootstrap-import' },
    ]);
    expect(await rows(`SELECT name, permissions FROM access_custom_roles`)).toEqual([{ name: 'auditor', permissions: ['diagnostics.read', 'runs.read'] }]);

    // The import drops the access cache when it commits; allow for that last tick, well under the 5 s refresh.
    await eventually(async () => ((await identity({ groups: ['/platform-admins'] })).roles.includes('admin') ? true : undefined), 2_000, 'imported mapping in force');
    expect((await identity({ groups: ['/platform-admins'] })).roles).toEqual(['admin']);
    expect((await identity({ groups: ['ops'], roles: ['AUDITOR'] })).roles).toEqual(['auditor', 'operator']);

    const body = await health();
    expect(body.preflight.status).toBe('fail');
    expect(body.preflight.failures).toContainEqual({
      name: 'sign-in',
      message: expect.stringMatching(/^0 caller\(s\) accepted in the last 90 days/),
      fix_hint: expect.stringContaining('/api/identity'),
    });
    expect(signIn()).toMatchObject({ category: 'auth', status: 'fail' });

    // Observed callers (user-123 above and first-admin here; written off the request path) feed the next boot's sign-in check.
    await identity({ groups: ['/platform-admins'] }, 'first-admin');
    await eventually(async () => ((await rows(`SELECT 1 FROM access_observations WHERE subject = 'first-admin'`)).length > 0 ? true : undefined), 15_000, 'observation');
  });

  it('second boot with a changed file does not re-import: the database is authoritative', async () => {
    // An operator edits the database after the import (what the Access surface will do) …
    await bench.db.query(`DELETE FROM access_group_roles WHERE group_value = 'ops'`);
    // … and the file still carries (different) bootstrap settings.
    await boot({
      group_roles: { latecomers: ['admin'], ops: ['admin'] },
      roles: { auditor: ['config.read'], extra: ['runs.read'] },
    });
    await app?.get(AccessBootstrapImport).importOnce();
    await new Promise((r) => setTimeout(r, 300)); // the boot's own import attempt has settled too
    expect(await rows(`SELECT group_value, roles FROM access_group_roles`)).toEqual([{ group_value: 'platform-admins', roles: ['admin'] }]);
    expect(await rows(`SELECT name, permissions FROM access_custom_roles`)).toEqual([{ name: 'auditor', permissions: ['diagnostics.read', 'runs.read'] }]);
    expect((await identity({ groups: ['latecomers', 'ops'] })).roles).toEqual([]);
    expect((await identity({ roles: ['auditor'] })).permissions).not.toContain('config.read');
  });

  it('sign-in passes once a caller was accepted and an administrator can be reached', async () => {
    await boot({});
    const check = signIn();
    expect(check).toMatchObject({ category: 'auth', status: 'pass' });
    expect(check?.message).toMatch(/^2 caller\(s\) accepted in the last 90 days; an administrator can be reached through: group-mapping/);
    expect((await health()).preflight.failures.map((f) => f.name)).not.toContain('sign-in');
  });

  it('sign-in fails when no administrator can be seen; SERVICE_ADMIN_GRANT is a way in', async () => {
    await bench.db.query(`DELETE FROM access_group_roles`);
    await boot({});
    expect(signIn()).toMatchObject({ status: 'fail' });
    expect((await health()).preflight.failures).toContainEqual(expect.objectContaining({
      name: 'sign-in', message: expect.stringContaining('no administrator can be seen from the server'),
    }));
    await app?.close();
    await boot({}, { SERVICE_ADMIN_GRANT: 'sub:first-admin' });
    expect(signIn()).toMatchObject({ status: 'pass', message: expect.stringContaining('admin-grant') });
  });

  it('with enforcement off sign-in reports but does not fail', async () => {
    await bench.db.query(`DELETE FROM access_observations`);
    await boot({ enforce: false });
    expect(signIn()).toMatchObject({ status: 'pass', message: expect.stringMatching(/^0 caller\(s\) accepted/) });
  });

  it('without an authority sign-in is skipped (nothing authenticates)', async () => {
    bench.writeConfig({ sandbox: { backend: 'in-process' } });
    app = await bootApp(bench.environment());
    expect(signIn()).toMatchObject({ status: 'skip' });
  });
});

describe('bootstrap import under the access rules (rule 9 at the import, rule 11 names it)', () => {
  let idp: OidcAuthority;
  let bench: AuthBench;
  let app: NestFastifyApplication | null = null;

  beforeAll(async () => {
    idp = await OidcAuthority.start();
    bench = await createAuthBench('auth_bootstrap_rules');
  });
  afterAll(async () => {
    await app?.close();
    await bench?.cleanup();
    await idp?.stop();
  });

  it('imports what the rules accept, leaves out a built-in name and a permission outside the catalog with a finding each, and records the import', async () => {
    bench.writeConfig({
      sandbox: { backend: 'in-process' },
      auth: {
        authority: idp.authority, audience: idp.defaultAudience, enforce: true,
        roles: { Reader: ['config.read'], shouty: ['Runs.Read'], auditor: ['runs.read'] },
        group_roles: { '/auditors': ['auditor'], admins: ['admin'] },
      },
    });
    app = await bootApp(bench.environment());
    const rows = async (sql: string) => (await bench.db.query(sql)).rows;
    await eventually(async () => ((await rows(`SELECT 1 FROM access_markers WHERE name = 'auth-bootstrap-import'`)).length > 0 ? true : undefined), 10_000, 'import marker');
    await eventually(async () => ((await rows('SELECT 1 FROM config_changes')).length >= 3 ? true : undefined), 10_000, 'the import recorded');
    expect(await rows('SELECT name, permissions FROM access_custom_roles ORDER BY name')).toEqual([{ name: 'auditor', permissions: ['runs.read'] }]);
    expect(await rows('SELECT group_value, roles FROM access_group_roles ORDER BY group_value')).toEqual([
      { group_value: 'admins', roles: ['admin'] }, { group_value: 'auditors', roles: ['auditor'] },
    ]);
    expect(await rows('SELECT attribution, kind, target FROM config_changes ORDER BY id')).toEqual([
      { attribution: 'bootstrap-import', kind: 'access.save-role', target: 'role:auditor' },
      { attribution: 'bootstrap-import', kind: 'access.map-group', target: 'group:auditors' },
      { attribution: 'bootstrap-import', kind: 'access.map-group', target: 'group:admins' },
    ]);
    const findings = (await app.inject({ method: 'GET', url: '/api/config/findings' })).json().findings as { field: string; reason: string; severity: string }[];
    const fromImport = findings.filter((f) => f.reason.includes('was not imported from the bootstrap file'));
    expect(fromImport.map((f) => f.field).sort()).toEqual(['auth.roles.Reader', 'auth.roles.shouty']);
    expect(fromImport.every((f) => f.severity === 'advisory')).toBe(true);
    const res = await app.inject({ method: 'GET', url: '/api/identity', headers: bearer(idp.mint({ sub: 'aud', claims: { groups: ['/auditors'] } })) });
    expect(res.json().roles).toEqual(['auditor']);
  });
});
