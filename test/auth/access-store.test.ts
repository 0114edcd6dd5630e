import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AccessStoreService } from '../../src/access/access-store.service.js';
import { OidcAuthority } from '../stand-ins/oidc-authority.js';
import { type AuthBench, bearer, bootApp, createAuthBench } from './support/auth-harness.js';
import type { IdentityBody } from './support/identity-types.js';

/**
 * Regressions found while writing the auth integration tests (both fixed in src/access):
 *  - a write invalidated while a load of the access document was in flight was not seen by the
 *    next request (it was served the in-flight, stale read, which was then cached for 5 s);
 *  - observations noted in the last seconds before shutdown were lost (the final flush ran after
 *    the database had been closed).
 */
describe('access store and observation recorder against PostgreSQL', () => {
  let idp: OidcAuthority;
  let bench: AuthBench;
  let app: NestFastifyApplication | null = null;

  beforeAll(async () => {
    idp = await OidcAuthority.start();
    bench = await createAuthBench('auth_store');
  });
  afterEach(async () => {
    await app?.close();
    app = null;
  });
  afterAll(async () => {
    await bench?.cleanup();
    await idp?.stop();
  });

  const boot = async (): Promise<NestFastifyApplication> =>
    (app = await bootApp(bench.environment({ SERVICE_AUTH_AUTHORITY: idp.authority, SERVICE_AUTH_AUDIENCE: idp.defaultAudience })));

  it('a grant written while a load is in flight applies to the next request after invalidate()', async () => {
    const server = await boot();
    const store = server.get(AccessStoreService);
    // Hold one table of the document locked, so a load started now reads the grants before the
    // write below and then waits.
    const locker = await bench.db.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE access_custom_roles IN ACCESS EXCLUSIVE MODE');
      void store.refresh();
      await new Promise((r) => setTimeout(r, 200));
      await bench.db.query(`INSERT INTO access_person_grants (claim, value, role, created_by) VALUES ('sub', 'zed', 'reader', 'test')`);
      store.invalidate();
      const pending = server.inject({ method: 'GET', url: '/api/identity', headers: bearer(idp.mint({ sub: 'zed' })) });
      await new Promise((r) => setTimeout(r, 100));
      await locker.query('COMMIT');
      expect((await pending).json<IdentityBody>().roles).toEqual(['reader']);
    } finally {
      locker.release();
    }
  });

  it('a caller observed just before shutdown is written by the final flush', async () => {
    const server = await boot();
    const res = await server.inject({ method: 'GET', url: '/api/identity', headers: bearer(idp.mint({ sub: 'late-caller', claims: { roles: ['reader'] } })) });
    expect(res.statusCode).toBe(200);
    await server.close();
    app = null;
    const { rows } = await bench.db.query<{ subject: string; role_values: string[] }>(`SELECT subject, role_values FROM access_observations WHERE subject = 'late-caller'`);
    expect(rows).toEqual([{ subject: 'late-caller', role_values: ['reader'] }]);
  });
});
