import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OidcAuthority } from '../stand-ins/oidc-authority.js';
import { type AuthBench, bearer, bootApp, createAuthBench } from '../auth/support/auth-harness.js';
import type { IdentityBody } from '../auth/support/identity-types.js';
import { type OpenApiDocument, type Schema, schemaViolations } from '../support/schema-conformance.js';

/**
 * The Access surface against the real server, PostgreSQL and a real OIDC authority, enforcement
 * on. The only route to admin is a person grant for `root` (no SERVICE_ADMIN_GRANT), so rule 11
 * can refuse.
 */
let idp: OidcAuthority;
let bench: AuthBench;
let app: NestFastifyApplication;
let root: string;

type Method = 'GET' | 'PUT' | 'DELETE';
const call = (method: Method, url: string, token: string, payload?: unknown) =>
  app.inject({ method, url, headers: bearer(token), ...(payload === undefined ? {} : { payload: payload as object }) });
const identity = async (token: string) => (await app.inject({ method: 'GET', url: '/api/identity', headers: bearer(token) })).json<IdentityBody>();

beforeAll(async () => {
  idp = await OidcAuthority.start();
  bench = await createAuthBench('access_surface');
  app = await bootApp(bench.environment({ SERVICE_AUTH_AUTHORITY: idp.authority, SERVICE_AUTH_AUDIENCE: idp.defaultAudience, SERVICE_AUTH_ENFORCE: 'true' }));
  // Written as an operator's SQL would be: the revision is not bumped, the background refresh or a write picks it up.
  await bench.db.query(`
    INSERT INTO access_person_grants (claim, value, role, created_by) VALUES ('sub', 'root', 'admin', 'test');
    INSERT INTO access_custom_roles (name, permissions, updated_by) VALUES ('legacy', '{runs.read,old.permission}', 'test'), ('configurer', '{config.read,config.write}', 'test');
    UPDATE access_revision SET revision = revision + 1;`);
  root = idp.mint({ sub: 'root' });
}, 60_000);

afterAll(async () => {
  await app?.close();
  await bench?.cleanup();
  await idp?.stop();
});

describe('the Access surface', () => {
  it('answers every read with 2xx for admin, 403 naming access.read otherwise (config.write alone does not suffice)', async () => {
    for (const url of ['/api/access', '/api/access/people', '/api/access/groups', '/api/access/roles']) {
      expect((await call('GET', url, root)).statusCode, url).toBe(200);
      const reader = await call('GET', url, idp.mint({ sub: 'r', claims: { roles: ['reader'] } }));
      expect(reader.statusCode, url).toBe(403);
      expect(reader.json()).toMatchObject({ missingPermissions: ['access.read'] });
      const configurer = await call('GET', url, idp.mint({ sub: 'c', claims: { roles: ['configurer'] } }));
      expect(configurer.statusCode, url).toBe(403);
    }
    const write = await call('PUT', '/api/access/groups/ops', idp.mint({ sub: 'c', claims: { roles: ['configurer'] } }), { roles: ['reader'] });
    expect(write.statusCode).toBe(403);
    expect(write.json()).toMatchObject({ missingPermissions: ['access.write'] });
  });

  it('grants a person not seen yet: shown as not signed in yet, and the grant applies to their next request', async () => {
    const alice = idp.mint({ sub: 'alice' });
    expect((await identity(alice)).roles).toEqual([]);
    const put = await call('PUT', '/api/access/people/sub/dave', root, { roles: ['Operator'] });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toEqual({ claim: 'sub', value: 'dave', roles: ['operator'], findings: [] });
    const page = (await call('GET', '/api/access/people?q=dave', root)).json();
    expect(page).toMatchObject({ total: 1, people: [{ claim: 'sub', value: 'dave', lastSeen: null, signedIn: false, roles: ['operator'],
      roleSources: [{ role: 'operator', via: 'person-grant', value: 'dave' }] }] });
    expect((await call('PUT', '/api/access/people/sub/alice', root, { roles: ['reader'] })).statusCode).toBe(200);
    expect((await identity(alice)).roles).toEqual(['reader']);
    const people = (await call('GET', '/api/access/people?limit=1&offset=0', root)).json();
    expect(people).toMatchObject({ limit: 1, offset: 0, people: [expect.objectContaining({ value: expect.any(String) })] });
    expect(people.total).toBeGreaterThanOrEqual(3);
  });

  it('removing a person removes the grant and the record together', async () => {
    expect((await call('PUT', '/api/access/people/sub/erin', root, { roles: ['reader'] })).statusCode).toBe(200);
    const erin = idp.mint({ sub: 'erin', claims: { roles: ['reader'] } });
    expect((await identity(erin)).roles).toEqual(['reader']);
    await bench.db.query(`INSERT INTO access_observations (subject, name_claim, name_value, role_values, group_values, last_seen)
      VALUES ('erin', 'sub', 'erin', '{}', '{}', now())`);
    expect((await call('DELETE', '/api/access/people/sub/erin', root)).statusCode).toBe(204);
    const { rows } = await bench.db.query(`SELECT 1 FROM access_observations WHERE subject = 'erin'
      UNION ALL SELECT 1 FROM access_person_grants WHERE value = 'erin' UNION ALL SELECT 1 FROM access_people WHERE value = 'erin'`);
    expect(rows).toEqual([]);
    expect((await call('GET', '/api/access/people?q=erin', root)).json()).toMatchObject({ total: 0 });
  });

  it('saves a group mapping (one leading slash ignored) and lists arrived and mapped groups with their roles', async () => {
    const put = await call('PUT', '/api/access/groups/%2Fdevs', root, { roles: ['reader'] });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toEqual({ value: 'devs', roles: ['reader'] });
    expect((await identity(idp.mint({ sub: 'gina', claims: { groups: ['/devs'] } }))).roles).toEqual(['reader']);
    const { groups } = (await call('GET', '/api/access/groups', root)).json<{ groups: { value: string; roles: string[]; mapped: boolean }[] }>();
    expect(groups).toContainEqual(expect.objectContaining({ value: 'devs', roles: ['reader'], mapped: true }));
  });

  it('rule 9: a built-in name (any case) or an unknown permission is refused at save with 422; a legacy permission already there is not', async () => {
    for (const name of ['Admin', 'READER', ' operator ']) {
      const res = await call('PUT', `/api/access/roles/${encodeURIComponent(name)}`, root, { permissions: ['runs.read'] });
      expect(res.statusCode, name).toBe(422);
      expect(res.json(), name).toMatchObject({ code: 'builtin_name', error: expect.stringContaining('built-in') });
    }
    const unknown = await call('PUT', '/api/access/roles/auditor', root, { permissions: ['Runs.Read', 'runs.read'] });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json()).toMatchObject({ code: 'unknown_permission', unknownPermissions: ['Runs.Read'] });
    const legacy = await call('PUT', '/api/access/roles/legacy', root, { permissions: ['runs.read', 'old.permission', 'runs.watch'] });
    expect(legacy.statusCode).toBe(200);
    expect(legacy.json()).toEqual({ name: 'legacy', permissions: ['old.permission', 'runs.read', 'runs.watch'] });
    expect((await call('PUT', '/api/access/roles/Auditor', root, { permissions: ['runs.read'] })).json()).toEqual({ name: 'auditor', permissions: ['runs.read'] });
    const grant = await call('PUT', '/api/access/people/sub/frank', root, { roles: ['nobody'] });
    expect(grant.statusCode).toBe(422);
    expect(grant.json()).toMatchObject({ code: 'unknown_role', unknownRoles: ['nobody'] });
    const roles = (await call('GET', '/api/access/roles', root)).json();
    expect(roles.builtIn.map((r: { name: string }) => r.name)).toEqual(['reader', 'operator', 'admin']);
    expect(roles.builtIn[2]).toMatchObject({ name: 'admin', holders: 1 });
    expect(roles.custom).toContainEqual({ name: 'legacy', permissions: ['runs.read', 'runs.watch'], legacyPermissions: ['old.permission'], holders: 0 });
  });

  it('rule 10: a role with a visible holder is not removed, and the refusal names the holders', async () => {
    expect((await call('PUT', '/api/access/roles/auditor', root, { permissions: ['runs.read'] })).statusCode).toBe(200);
    expect((await call('PUT', '/api/access/people/sub/hank', root, { roles: ['auditor'] })).statusCode).toBe(200);
    expect((await call('PUT', '/api/access/groups/audit', root, { roles: ['auditor'] })).statusCode).toBe(200);
    const refused = await call('DELETE', '/api/access/roles/Auditor', root);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'has_holders', error: expect.stringContaining('person sub=hank'),
      holders: [{ kind: 'person', claim: 'sub', value: 'hank' }, { kind: 'group', value: 'audit' }] });
    expect((await call('DELETE', '/api/access/people/sub/hank', root)).statusCode).toBe(204);
    expect((await call('PUT', '/api/access/groups/audit', root, { roles: [] })).statusCode).toBe(200);
    expect((await call('DELETE', '/api/access/roles/auditor', root)).statusCode).toBe(204);
    expect((await call('DELETE', '/api/access/roles/auditor', root)).statusCode).toBe(404);
    expect((await call('DELETE', '/api/access/roles/reader', root)).statusCode).toBe(422);
  });

  it('rule 11: a write that leaves no route to admin is refused naming the four routes', async () => {
    const routes = ['person-grant', 'group-mapping', 'role-claim', 'admin-grant'];
    for (const [method, url, payload] of [
      ['DELETE', '/api/access/people/sub/root', undefined],
      ['PUT', '/api/access/people/sub/root', { roles: ['reader'] }],
      ['PUT', '/api/access/claims', { name_claim: 'email' }],
    ] as const) {
      const res = await call(method, url, root, payload);
      expect(res.statusCode, url).toBe(409);
      expect(res.json(), url).toMatchObject({ code: 'no_admin_route', routes, error: expect.stringContaining('SERVICE_ADMIN_GRANT') });
    }
    expect((await identity(root)).roles).toEqual(['admin']);
  });

  it('saves claim names, used from the next request', async () => {
    const token = idp.mint({ sub: 'ivy', claims: { app_roles: ['reader'] } });
    expect((await identity(token)).roles).toEqual([]);
    const put = await call('PUT', '/api/access/claims', root, { role_claim: 'app_roles' });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toEqual({ claimNames: { role_claim: 'app_roles', group_claim: 'groups', name_claim: 'sub' }, findings: [] });
    expect((await identity(token)).roles).toEqual(['reader']);
    expect((await call('GET', '/api/access', root)).json()).toMatchObject({
      claimNames: { role_claim: 'app_roles' }, savedClaimNames: { role_claim: 'app_roles', group_claim: null, name_claim: null },
    });
    expect((await call('PUT', '/api/access/claims', root, {})).statusCode).toBe(400);
    expect((await call('PUT', '/api/access/claims', root, { role_claim: 'roles' })).statusCode).toBe(200);
  });
});

type Documented = OpenApiDocument & { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>> };

describe('the documented answers of the Access surface are the answers given', () => {
  it('every route\'s 2xx body conforms to its OpenAPI schema in both directions', async () => {
    const document = (await app.inject({ method: 'GET', url: '/api/docs/openapi.json' })).json<Documented>();
    const conforms = (path: string, method: string, body: unknown) => {
      const schema = document.paths[path]?.[method]?.responses['200']?.content?.['application/json']?.schema;
      expect(schema, `a schema for ${method} ${path}`).toBeDefined();
      expect(schemaViolations(document, schema!, body), `${method} ${path}`).toEqual([]);
    };
    await bench.db.query(`INSERT INTO access_observations (subject, name_claim, name_value, role_values, group_values, last_seen)
      VALUES ('obs', 'sub', 'obs', '{reader}', '{/team}', now()) ON CONFLICT DO NOTHING`);
    const grant = await call('PUT', '/api/access/people/email/frank@example.test', root, { roles: ['reader'] });
    conforms('/api/access/people/{claim}/{value}', 'put', grant.json());
    expect(grant.json().findings).toHaveLength(1);
    conforms('/api/access/groups/{value}', 'put', (await call('PUT', '/api/access/groups/schema-team', root, { roles: ['reader'] })).json());
    conforms('/api/access/roles/{name}', 'put', (await call('PUT', '/api/access/roles/schema-role', root, { permissions: ['runs.read'] })).json());
    for (const [path, url] of [['/api/access', '/api/access'], ['/api/access/people', '/api/access/people'], ['/api/access/groups', '/api/access/groups'], ['/api/access/roles', '/api/access/roles']]) {
      const body = (await call('GET', url!, root)).json();
      conforms(path!, 'get', body);
    }
    const people = (await call('GET', '/api/access/people', root)).json();
    expect(people.people.some((p: { roleSources: unknown[] }) => p.roleSources.length > 0)).toBe(true);
    // The check can fail: a field the schema does not name is caught.
    const roles = (await call('GET', '/api/access/roles', root)).json();
    const schema = document.paths['/api/access/roles']!.get!.responses['200']!.content!['application/json']!.schema;
    expect(schemaViolations(document, schema, { ...roles, extra: 1 })).toEqual(['$.extra is not in the schema']);
    expect((await call('DELETE', '/api/access/roles/schema-role', root)).statusCode).toBe(204);
    expect((await call('DELETE', '/api/access/people/email/frank@example.test', root)).statusCode).toBe(204);
    expect((await call('PUT', '/api/access/groups/schema-team', root, { roles: [] })).statusCode).toBe(200);
  });
});
