import { randomBytes } from 'node:crypto';
import { Logger, type LoggerService } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigService } from '../../src/config/config.service.js';
import { FindingsService } from '../../src/findings/findings.service.js';
import { OidcAuthority } from '../stand-ins/oidc-authority.js';
import { type AuthBench, bearer, bootApp, createAuthBench, eventually } from '../auth/support/auth-harness.js';

/**
 * Stored secrets and the change feed against the real server, PostgreSQL and a real OIDC
 * authority, enforcement on. Two replicas share the database (and the key); a third has no key.
 * The project's repository takes its auth_secret from `${REPO_TOKEN}`, which only a stored secret
 * can resolve.
 */
let idp: OidcAuthority;
let bench: AuthBench;
let a: NestFastifyApplication;
let b: NestFastifyApplication;
let root: string;
const lines: string[] = [];
const FIRST = `ghp_First${randomBytes(8).toString('hex')}`;
const SECOND = `ghp_Second${randomBytes(8).toString('hex')}`;
const responses: string[] = [];

type Method = 'GET' | 'PUT' | 'DELETE' | 'POST';
async function call(method: Method, url: string, token: string, payload?: unknown, app = a) {
  const res = await app.inject({ method, url, headers: bearer(token), ...(payload === undefined ? {} : { payload: payload as object }) });
  responses.push(res.body);
  return res;
}
const authSecret = (app: NestFastifyApplication) => app.get(ConfigService).config.projects.shop?.repos[0]?.auth_secret ?? null;
const caller = (sub: string, roles: string[]) => idp.mint({ sub, claims: { roles } });

beforeAll(async () => {
  idp = await OidcAuthority.start();
  bench = await createAuthBench('secrets');
  bench.writeConfig({
    sandbox: { backend: 'in-process' },
    projects: { shop: { tracker: 'platform-a', repos: [{ name: 'shop-web', platform: 'platform-a', url: 'https://github.com/acme/shop-web', auth_secret: '${REPO_TOKEN}' }] } },
  });
  const env = {
    SERVICE_AUTH_AUTHORITY: idp.authority, SERVICE_AUTH_AUDIENCE: idp.defaultAudience, SERVICE_AUTH_ENFORCE: 'true',
    SERVICE_ADMIN_GRANT: 'sub:root', SERVICE_AUTH_NAME_CLAIM: 'email', LOG_LEVEL: 'debug',
  };
  const key = randomBytes(32).toString('base64');
  [a, b] = await Promise.all([bootApp(bench.environment({ ...env, SERVICE_SECRETS_KEY: key })), bootApp(bench.environment({ ...env, SERVICE_SECRETS_KEY: key }))]);
  await bench.db.query(`INSERT INTO access_custom_roles (name, permissions, updated_by) VALUES
    ('secretkeeper', '{secrets.read,secrets.write}', 'test'), ('configurer', '{config.read,config.write}', 'test');
    UPDATE access_revision SET revision = revision + 1;`);
  root = idp.mint({ sub: 'root', claims: { email: 'root@example.test' } });
  // Every line the service logs from here on (the Nest loggers; request lines never carry bodies).
  const push = (message: unknown, ...rest: unknown[]) => void lines.push(JSON.stringify([message, ...rest]));
  Logger.overrideLogger({ log: push, warn: push, error: push, debug: push, verbose: push, fatal: push } satisfies LoggerService);
}, 60_000);

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await bench?.cleanup();
  await idp?.stop();
});

describe('stored secrets', () => {
  it('refuses callers without secrets.read / secrets.write (403 naming them)', async () => {
    const reader = caller('r', ['reader']);
    expect((await call('GET', '/api/secrets', reader)).json()).toMatchObject({ missingPermissions: ['secrets.read'] });
    const configurer = caller('c', ['configurer']);
    const put = await call('PUT', '/api/secrets/REPO_TOKEN', configurer, { value: 'whatever-value' });
    expect(put.statusCode).toBe(403);
    expect(put.json()).toMatchObject({ missingPermissions: ['secrets.write'] });
    expect((await call('DELETE', '/api/secrets/REPO_TOKEN', configurer)).statusCode).toBe(403);
  });

  it('resolves a ${NAME} reference as soon as it is saved, on this replica and the other, without a restart', async () => {
    expect(authSecret(a)).toBeNull();
    expect(a.get(FindingsService).all().some((f) => f.field === 'projects.shop.repos[0].auth_secret')).toBe(true);
    const put = await call('PUT', '/api/secrets/REPO_TOKEN', root, { value: FIRST });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ name: 'REPO_TOKEN', usedBy: ['projects.shop.repos[0].auth_secret'] });
    expect(authSecret(a)).toBe(FIRST);
    expect(a.get(FindingsService).all().some((f) => f.field === 'projects.shop.repos[0].auth_secret')).toBe(false);
    await eventually(async () => (authSecret(b) === FIRST ? true : undefined), 5_000, 'replica b resolves the saved secret');

    const list = await call('GET', '/api/secrets', root);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual({
      key: 'ok',
      secrets: [{ name: 'REPO_TOKEN', updatedAt: expect.any(String), updatedBy: 'root@example.test', readable: true, usedBy: ['projects.shop.repos[0].auth_secret'] }],
    });
  });

  it('refuses a bad name (400) and deleting a secret still referenced (409 naming the uses), and deletes an unused one', async () => {
    expect((await call('PUT', '/api/secrets/1BAD-NAME', root, { value: 'x' })).statusCode).toBe(400);
    const refused = await call('DELETE', '/api/secrets/REPO_TOKEN', root);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'in_use', uses: ['projects.shop.repos[0].auth_secret'] });
    expect((await call('PUT', '/api/secrets/SPARE', root, { value: 'spare-value-1234' })).statusCode).toBe(200);
    expect((await call('DELETE', '/api/secrets/SPARE', root)).statusCode).toBe(204);
    expect((await call('DELETE', '/api/secrets/SPARE', root)).statusCode).toBe(404);
  });

  it('stores values encrypted, never in clear', async () => {
    const { rows } = await bench.db.query<{ value: Buffer }>("SELECT value FROM secrets WHERE name = 'REPO_TOKEN'");
    expect(rows[0]!.value.includes(Buffer.from(FIRST))).toBe(false);
    const changes = await bench.db.query<{ row: string }>('SELECT row_to_json(c)::text AS row FROM config_changes c');
    for (const { row } of changes.rows) expect(row).not.toContain(FIRST);
  });
});

describe('the change feed and revert', () => {
  it('needs config.read + secrets.read (feed) and config.write + secrets.write (revert) together', async () => {
    for (const [roles, missing] of [[['secretkeeper'], 'config'], [['configurer'], 'secrets'], [['reader'], null]] as const) {
      const token = caller(`only-${roles[0]}`, [...roles]);
      const feed = await call('GET', '/api/config/changes', token);
      expect(feed.statusCode).toBe(403);
      if (missing) expect(feed.json().missingPermissions).toEqual([`${missing}.read`]);
      const revert = await call('POST', '/api/config/changes/1/revert', token);
      expect(revert.statusCode).toBe(403);
      if (missing) expect(revert.json().missingPermissions).toEqual([`${missing}.write`]);
    }
    expect((await call('GET', '/api/config/changes', caller('both', ['secretkeeper', 'configurer']))).statusCode).toBe(200);
  });

  it('lists every write newest first, attributed to the name_claim principal, with secret values masked', async () => {
    const feed = await call('GET', '/api/config/changes?limit=2', root);
    expect(feed.statusCode).toBe(200);
    const body = feed.json();
    expect(body).toMatchObject({ total: 3, limit: 2, offset: 0 });
    expect(body.changes.map((c: { kind: string; target: string }) => `${c.kind} ${c.target}`)).toEqual(['secret.delete secret:SPARE', 'secret.put secret:SPARE']);
    const first = (await call('GET', '/api/config/changes?offset=2', root)).json().changes[0];
    expect(first).toMatchObject({ kind: 'secret.put', target: 'secret:REPO_TOKEN', attribution: 'root@example.test', before: null, after: { name: 'REPO_TOKEN', value: '***' }, revertOf: null });
  });

  it('reverts a secret to its previous value (itself a change), and refuses a revert under a newer change (409) or of no change (404)', async () => {
    const firstPut = (await call('GET', '/api/config/changes?limit=1&offset=2', root)).json().changes[0].id as number;
    const second = await call('PUT', '/api/secrets/REPO_TOKEN', root, { value: SECOND });
    expect(authSecret(a)).toBe(SECOND);
    const stale = await call('POST', `/api/config/changes/${firstPut}/revert`, root);
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ code: 'newer_change', newerChanges: [second.json().change] });

    const revert = await call('POST', `/api/config/changes/${second.json().change}/revert`, root);
    expect(revert.statusCode).toBe(201);
    expect(authSecret(a)).toBe(FIRST);
    await eventually(async () => (authSecret(b) === FIRST ? true : undefined), 5_000, 'replica b sees the revert');
    const [record] = (await call('GET', '/api/config/changes?limit=1', root)).json().changes;
    expect(record).toMatchObject({ id: revert.json().change, kind: 'secret.put', revertOf: second.json().change, before: { value: '***' }, after: { value: '***' } });

    expect((await call('POST', '/api/config/changes/999999/revert', root)).statusCode).toBe(404);
  });

  it('reverts an access grant through the access rules, recorded with its before and after', async () => {
    const grant = await call('PUT', '/api/access/people/email/dave@example.test', root, { roles: ['operator'] });
    expect(grant.statusCode).toBe(200);
    const [record] = (await call('GET', '/api/config/changes?limit=1', root)).json().changes;
    expect(record).toMatchObject({
      kind: 'access.grant-person', target: 'person:email:dave@example.test', attribution: 'root@example.test',
      before: { claim: 'email', value: 'dave@example.test', roles: [] }, after: { claim: 'email', value: 'dave@example.test', roles: ['operator'] },
    });
    const dave = idp.mint({ sub: 'dave', claims: { email: 'dave@example.test' } });
    expect((await call('GET', '/api/identity', dave)).json().roles).toEqual(['operator']);
    const revert = await call('POST', `/api/config/changes/${record.id}/revert`, root);
    expect(revert.statusCode).toBe(201);
    expect((await call('GET', '/api/identity', dave, undefined, b)).json().roles).toEqual([]);
    const [reverted] = (await call('GET', '/api/config/changes?limit=1', root)).json().changes;
    expect(reverted).toMatchObject({ kind: 'access.grant-person', revertOf: record.id, after: { roles: [] } });
  });
});

describe('secret values', () => {
  it('appear in no response of these routes and in no log line', () => {
    expect(responses.length).toBeGreaterThan(20);
    for (const body of responses) {
      expect(body).not.toContain(FIRST);
      expect(body).not.toContain(SECOND);
    }
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line).not.toContain(FIRST);
      expect(line).not.toContain(SECOND);
    }
  });

  it('without SERVICE_SECRETS_KEY: a finding, references unconfigured, and saving refused', async () => {
    const c = await bootApp(bench.environment({ SERVICE_AUTH_AUTHORITY: idp.authority, SERVICE_AUTH_AUDIENCE: idp.defaultAudience, SERVICE_AUTH_ENFORCE: 'true', SERVICE_ADMIN_GRANT: 'sub:root' }));
    try {
      await eventually(async () => (c.get(FindingsService).all().some((f) => f.field === 'SERVICE_SECRETS_KEY') ? true : undefined), 5_000, 'key finding');
      expect(c.get(FindingsService).all().find((f) => f.field === 'SERVICE_SECRETS_KEY')).toMatchObject({ severity: 'blocking', reason: expect.stringContaining('REPO_TOKEN') });
      expect(authSecret(c)).toBeNull();
      const put = await c.inject({ method: 'PUT', url: '/api/secrets/OTHER', headers: bearer(root), payload: { value: 'other-value' } });
      expect(put.statusCode).toBe(409);
      expect(put.json()).toMatchObject({ code: 'no_secrets_key' });
      expect((await c.inject({ method: 'GET', url: '/api/secrets', headers: bearer(root) })).json()).toMatchObject({ key: 'missing', secrets: [{ name: 'REPO_TOKEN', readable: false }] });
    } finally {
      await c.close();
    }
  });
});
