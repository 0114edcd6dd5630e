import { Controller, Get } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessStoreService } from '../../src/access/access-store.service.js';
import { Permission } from '../../src/auth/permission.js';
import { RequirePermissions } from '../../src/auth/require-permissions.decorator.js';
import { OidcAuthority } from '../stand-ins/oidc-authority.js';
import { type AuthBench, bearer, bootApp, createAuthBench, eventually } from './support/auth-harness.js';
import type { IdentityBody, IdentityRefusalBody, UnauthorizedResponse } from './support/identity-types.js';

/**
 * Routes that need permissions no production route needs yet (every production route but
 * /api/identity arrives in later issues). Mounted beside the real AppModule, so the real global
 * PermissionsGuard (APP_GUARD) guards them exactly as it guards production routes.
 */
@Controller('test-auth')
class GuardedTestController {
  @Get('runs')
  @RequirePermissions(Permission.RunsRead)
  runs(): { ok: true } {
    return { ok: true };
  }

  /** Like the contract's GET /api/config/export: two permissions required together. */
  @Get('export')
  @RequirePermissions(Permission.ConfigExport, Permission.SecretsRead)
  export(): { ok: true } {
    return { ok: true };
  }

  @Get('undeclared')
  undeclared(): { ok: true } {
    return { ok: true };
  }
}

const ADMIN_GRANT = 'group:/break-glass, sub:root-user, carol';
const now = (): number => Math.floor(Date.now() / 1000);

describe('HTTP enforcement and role resolution (real AppModule, real OIDC authority, PostgreSQL)', () => {
  let idp: OidcAuthority;
  let bench: AuthBench;
  let on: NestFastifyApplication;
  let off: NestFastifyApplication;

  const get = async (app: NestFastifyApplication, url: string, token?: string) =>
    app.inject({ method: 'GET', url, headers: token === undefined ? {} : bearer(token) });
  const identity = async (claims: Record<string, unknown>, sub = 'user-123'): Promise<IdentityBody> => {
    const res = await get(on, '/api/identity', idp.mint({ sub, claims }));
    expect(res.statusCode).toBe(200);
    return res.json<IdentityBody>();
  };

  beforeAll(async () => {
    idp = await OidcAuthority.start();
    bench = await createAuthBench('auth_http');
    const auth = { SERVICE_AUTH_AUTHORITY: idp.authority, SERVICE_AUTH_AUDIENCE: idp.defaultAudience, SERVICE_ADMIN_GRANT: ADMIN_GRANT };
    [on, off] = await Promise.all([
      bootApp(bench.environment({ ...auth, SERVICE_AUTH_ENFORCE: 'true' }), { controllers: [GuardedTestController] }),
      bootApp(bench.environment({ ...auth, SERVICE_AUTH_ENFORCE: 'false' }), { controllers: [GuardedTestController] }),
    ]);
    await bench.db.query(`
      INSERT INTO access_custom_roles (name, permissions, updated_by) VALUES
        ('auditor', '{runs.read,diagnostics.read}', 'test'),
        ('exporter', '{config.export}', 'test');
      INSERT INTO access_group_roles (group_value, roles, updated_by) VALUES
        ('platform-admins', '{admin}', 'test'),
        ('/ops', '{Operator}', 'test'),
        ('audit', '{auditor}', 'test');
      INSERT INTO access_person_grants (claim, value, role, created_by) VALUES
        ('sub', 'alice', 'operator', 'test'),
        ('email', 'bob@example.test', 'admin', 'test');`);
    for (const app of [on, off]) app.get(AccessStoreService).invalidate();
  });

  afterAll(async () => {
    await on?.close();
    await off?.close();
    await bench?.cleanup();
    await idp?.stop();
  });

  describe('401 with enforcement on', () => {
    it('missing token: WWW-Authenticate Bearer realm, no error code', async () => {
      const res = await get(on, '/api/identity');
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="pipeline-service"');
      expect(res.json<UnauthorizedResponse>()).toMatchObject({ error: 'unauthorized', reason: 'missing' });
    });

    it('a non-Bearer Authorization header counts as no token', async () => {
      const res = await on.inject({ method: 'GET', url: '/api/identity', headers: { authorization: 'Basic dXNlcjpwdw==' } });
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="pipeline-service"');
    });

    const cases: { name: string; reason: string; token: () => string; detail: Record<string, unknown>; message: RegExp }[] = [
      {
        name: 'invalid signature (a published kid, signed with another key)',
        reason: 'signature',
        token: () => idp.mint({ foreignKey: true, headerKid: 'key-1' }),
        detail: {},
        message: /signature does not verify/,
      },
      {
        name: 'invalid signature (a kid the authority does not publish)',
        reason: 'signature',
        token: () => idp.mint({ foreignKey: true, kid: 'rogue' }),
        detail: {},
        message: /publishes no signing key 'rogue'/,
      },
      {
        name: 'expired',
        reason: 'expired',
        token: () => idp.mint({ exp: now() - 3600 }),
        detail: {},
        message: /expired at/,
      },
      {
        name: 'wrong audience',
        reason: 'audience',
        token: () => idp.mint({ aud: 'someone-else' }),
        detail: { presentedAudience: 'someone-else', expectedAudience: 'pipeline-service' },
        message: /audience 'someone-else' is not the configured audience 'pipeline-service'/,
      },
      {
        name: 'wrong issuer',
        reason: 'issuer',
        token: () => idp.mint({ iss: 'https://impostor.example' }),
        detail: { presentedIssuer: 'https://impostor.example' },
        message: /issuer 'https:\/\/impostor.example' is not/,
      },
      {
        name: 'malformed',
        reason: 'malformed',
        token: () => 'not-a-jwt',
        detail: {},
        message: /not a signed JWT/,
      },
    ];

    it.each(cases)('$name: 401, error="invalid_token", body names the reason and expected vs presented', async (c) => {
      const res = await get(on, '/api/identity', c.token());
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe(`Bearer realm="pipeline-service", error="invalid_token", error_description="${c.reason}"`);
      const body = res.json<UnauthorizedResponse>();
      expect(body).toMatchObject({ error: 'unauthorized', reason: c.reason });
      expect(body.message).toMatch(c.message);
      expect(body.detail).toMatchObject({
        expectedAuthority: idp.authority,
        expectedAudience: idp.defaultAudience,
        ...(c.reason === 'malformed' ? {} : { expectedIssuer: idp.issuer }),
        ...c.detail,
      });
      expect(body.detail?.message).toBe(body.message);
    });

    it('a valid token passes the same route', async () => {
      expect((await get(on, '/api/identity', idp.mint())).statusCode).toBe(200);
    });
  });

  describe('403 with enforcement on', () => {
    it('a caller without the one permission a route needs: body exactly {error, missingPermissions}', async () => {
      const res = await get(on, '/test-auth/runs', idp.mint({ sub: 'nobody' }));
      expect(res.statusCode).toBe(403);
      const body = res.json<Record<string, unknown>>();
      expect(Object.keys(body).sort()).toEqual(['error', 'missingPermissions']);
      expect(body['missingPermissions']).toEqual(['runs.read']);
      expect(typeof body['error']).toBe('string');
      expect(body['error']).not.toBe('');
    });

    it('a route needing two permissions names every missing one', async () => {
      const res = await get(on, '/test-auth/export', idp.mint({ claims: { roles: ['operator'] } }));
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: 'missing permissions: config.export, secrets.read', missingPermissions: ['config.export', 'secrets.read'] });
    });

    it('holding one of the two is still refused, naming only the other', async () => {
      const res = await get(on, '/test-auth/export', idp.mint({ claims: { roles: ['exporter'] } }));
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: 'missing permission: secrets.read', missingPermissions: ['secrets.read'] });
    });

    it('holding both passes; the right role passes the one-permission route', async () => {
      expect((await get(on, '/test-auth/export', idp.mint({ claims: { roles: ['admin'] } }))).statusCode).toBe(200);
      expect((await get(on, '/test-auth/runs', idp.mint({ claims: { roles: ['reader'] } }))).statusCode).toBe(200);
    });

    it('a route that declares nothing is refused, never served', async () => {
      expect((await get(on, '/test-auth/undeclared', idp.mint({ claims: { roles: ['admin'] } }))).statusCode).toBe(500);
      expect((await get(off, '/test-auth/undeclared')).statusCode).toBe(500);
    });

    it('public routes need no token', async () => {
      expect((await get(on, '/health')).statusCode).toBe(200);
      expect((await get(on, '/api/config/findings')).statusCode).toBe(200);
    });
  });

  describe('enforcement off: validates, refuses nothing', () => {
    it('no token, a bad token, a caller without permissions: all served', async () => {
      expect((await get(off, '/test-auth/export')).statusCode).toBe(200);
      expect((await get(off, '/test-auth/export', 'garbage')).statusCode).toBe(200);
      expect((await get(off, '/test-auth/export', idp.mint({ sub: 'nobody' }))).statusCode).toBe(200);
      expect((await get(off, '/test-auth/runs', idp.mint({ exp: now() - 3600 }))).statusCode).toBe(200);
    });

    it('/api/identity without a token says so', async () => {
      const res = await get(off, '/api/identity');
      expect(res.statusCode).toBe(200);
      expect(res.json<IdentityRefusalBody>()).toMatchObject({ authenticated: false, refusal: { reason: 'missing' } });
    });

    it('/api/identity shows the refusal detail of a bad token', async () => {
      const res = await get(off, '/api/identity', idp.mint({ aud: 'api://wrong', claims: { ver: '1.0' } }));
      expect(res.statusCode).toBe(200);
      const body = res.json<IdentityRefusalBody>();
      expect(body).toMatchObject({
        authenticated: false,
        refusal: {
          reason: 'audience',
          detail: {
            expectedAuthority: idp.authority, expectedAudience: 'pipeline-service', expectedIssuer: idp.issuer,
            presentedAudience: 'api://wrong', presentedIssuer: idp.issuer, presentedVersion: '1.0',
          },
        },
      });
      expect(body.refusal.message).toMatch(/audience 'api:\/\/wrong'/);
      const expired = (await get(off, '/api/identity', idp.mint({ exp: now() - 3600 }))).json<IdentityRefusalBody>();
      expect(expired.refusal.reason).toBe('expired');
    });

    it('a valid token still resolves the caller', async () => {
      const res = await get(off, '/api/identity', idp.mint({ claims: { roles: ['reader'] } }));
      expect(res.json<IdentityBody>()).toMatchObject({ authenticated: true, roles: ['reader'] });
    });
  });

  describe('role resolution through /api/identity', () => {
    it('no roles: identity.read only; the response has every field of the spec', async () => {
      const body = await identity({}, 'nobody');
      expect(body).toEqual({
        authenticated: true, subject: 'nobody', issuer: idp.issuer, roleClaim: 'roles', groupClaim: 'groups',
        roleClaimValues: [], groupClaimValues: [], roles: [], permissions: ['identity.read'], findings: expect.any(Array),
      });
    });

    it('role claim', async () => {
      const body = await identity({ roles: ['operator'] });
      expect(body.roleClaimValues).toEqual(['operator']);
      expect(body.roles).toEqual(['operator']);
      expect(body.permissions).toEqual([
        'catalog.read', 'diagnostics.probe', 'diagnostics.read', 'dialog.write', 'identity.read',
        'projects.init', 'runs.control', 'runs.delete', 'runs.read', 'runs.watch',
      ]);
      expect(body.permissions).not.toContain('config.read');
    });

    it('role names fold case: Admin is admin', async () => {
      const body = await identity({ roles: ['Admin'] });
      expect(body.roleClaimValues).toEqual(['Admin']);
      expect(body.roles).toEqual(['admin']);
      expect(body.permissions).toContain('archive.import');
      expect(body.permissions).toContain('access.write');
    });

    it('an unknown role value grants nothing and is a finding', async () => {
      const body = await identity({ roles: ['superuser'] });
      expect(body.roles).toEqual([]);
      expect(body.findings.map((f) => f.reason)).toContainEqual(expect.stringMatching(/'superuser'.*names no role/));
    });

    it('group mapping: one leading slash is removed on either side; otherwise exact', async () => {
      expect((await identity({ groups: ['/platform-admins'] })).roles).toEqual(['admin']);
      expect((await identity({ groups: ['platform-admins'] })).roles).toEqual(['admin']);
      expect((await identity({ groups: ['ops'] })).roles).toEqual(['operator']); // stored '/ops' → Operator (folded)
      expect((await identity({ groups: ['Platform-Admins'] })).roles).toEqual([]);
      expect((await identity({ groups: ['//platform-admins'] })).roles).toEqual([]);
      expect((await identity({ groups: ['platform-admins/'] })).roles).toEqual([]);
    });

    it('roles from every source are unioned (two groups, role claim, custom role)', async () => {
      const body = await identity({ groups: ['/ops', 'audit'], roles: ['reader'] });
      expect(body.groupClaimValues).toEqual(['/ops', 'audit']);
      expect(body.roles).toEqual(['auditor', 'operator', 'reader']);
    });

    it('custom role through the role claim (case folded) grants exactly its permissions', async () => {
      const body = await identity({ roles: ['Auditor'] });
      expect(body.roles).toEqual(['auditor']);
      expect(body.permissions).toEqual(['diagnostics.read', 'identity.read', 'runs.read']);
    });

    it('person grant under name_claim (sub): values compare ordinally', async () => {
      expect((await identity({}, 'alice')).roles).toEqual(['operator']);
      expect((await identity({}, 'Alice')).roles).toEqual([]);
    });

    it('person grant under another claim grants nothing and yields a finding', async () => {
      const body = await identity({ email: 'bob@example.test' }, 'bob');
      expect(body.roles).toEqual([]);
      expect(body.findings).toContainEqual(expect.objectContaining({
        subsystem: 'auth', field: 'auth.name_claim',
        reason: expect.stringMatching(/person grant email=bob@example.test .*grants nothing.*not the configured name_claim 'sub'/),
      }));
    });

    it('SERVICE_ADMIN_GRANT sub: matches the subject only', async () => {
      expect((await identity({}, 'root-user')).roles).toEqual(['admin']);
      expect((await identity({ groups: ['root-user'] }, 'someone')).roles).toEqual([]);
    });

    it('SERVICE_ADMIN_GRANT group: matches a group (leading slash folded), not the subject', async () => {
      expect((await identity({ groups: ['break-glass'] })).roles).toEqual(['admin']);
      expect((await identity({ groups: ['/break-glass'] })).roles).toEqual(['admin']);
      expect((await identity({}, '/break-glass')).roles).toEqual([]);
    });

    it('an unprefixed SERVICE_ADMIN_GRANT entry grants nothing and is a finding', async () => {
      const body = await identity({}, 'carol');
      expect(body.roles).toEqual([]);
      expect(body.findings).toContainEqual(expect.objectContaining({
        subsystem: 'auth', field: 'SERVICE_ADMIN_GRANT', reason: expect.stringMatching(/'carol' has no 'group:' or 'sub:' prefix/),
      }));
    });

    it('group overflow: _claim_names / _claim_sources are reported as themselves', async () => {
      const body = await identity({
        roles: ['reader'],
        _claim_names: { groups: 'src1' },
        _claim_sources: { src1: { endpoint: 'https://graph.example/v1.0/users/x/getMemberObjects' } },
      });
      expect(body.roles).toEqual(['reader']);
      expect(body.groupClaimValues).toEqual([]);
      expect(body.findings).toContainEqual(expect.objectContaining({
        field: 'auth.group_claim', reason: expect.stringMatching(/sent _claim_names, _claim_sources instead of the group claim 'groups'.*no group mapping can resolve this caller/),
      }));
    });

    it('group overflow: hasgroups is reported as itself', async () => {
      const body = await identity({ hasgroups: true });
      expect(body.roles).toEqual([]);
      expect(body.findings).toContainEqual(expect.objectContaining({
        field: 'auth.group_claim', reason: expect.stringMatching(/sent hasgroups instead of the group claim/),
      }));
    });

    it('a grant saved to the database applies once the store is refreshed', async () => {
      expect((await identity({}, 'dave')).roles).toEqual([]);
      await bench.db.query(`INSERT INTO access_person_grants (claim, value, role, created_by) VALUES ('sub', 'dave', 'reader', 'test')`);
      on.get(AccessStoreService).invalidate();
      expect((await identity({}, 'dave')).roles).toEqual(['reader']);
    });
  });

  describe('observations', () => {
    it('a validated caller is written to access_observations off the request path', async () => {
      await get(on, '/api/identity', idp.mint({ sub: 'observed-erin', claims: { roles: ['Reader', 'ghost'], groups: ['/ops', 'x y'] } }));
      const row = await eventually(async () => {
        const { rows } = await bench.db.query<{ subject: string; name_claim: string; name_value: string | null; role_values: string[]; group_values: string[]; last_seen: Date }>(
          `SELECT subject, name_claim, name_value, role_values, group_values, last_seen FROM access_observations WHERE subject = 'observed-erin'`);
        return rows[0];
      }, 15_000, 'the observation row');
      expect(row).toMatchObject({ subject: 'observed-erin', name_claim: 'sub', name_value: 'observed-erin', role_values: ['Reader', 'ghost'], group_values: ['/ops', 'x y'] });
      expect(Date.now() - row.last_seen.getTime()).toBeLessThan(60_000);
    });

    it('a refused token is not observed', async () => {
      await get(on, '/api/identity', idp.mint({ sub: 'refused-frank', aud: 'nope' }));
      await get(on, '/api/identity', idp.mint({ sub: 'accepted-gina' }));
      await eventually(async () => {
        const { rows } = await bench.db.query(`SELECT 1 FROM access_observations WHERE subject = 'accepted-gina'`);
        return rows.length > 0 ? true : undefined;
      }, 15_000, 'the accepted caller observed');
      const { rows } = await bench.db.query(`SELECT 1 FROM access_observations WHERE subject = 'refused-frank'`);
      expect(rows).toEqual([]);
    });
  });
});
