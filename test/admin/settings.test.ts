import { randomBytes } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigService } from '../../src/config/config.service.js';
import { OidcAuthority } from '../stand-ins/oidc-authority.js';
import { type AuthBench, bearer, bootApp, createAuthBench, eventually } from '../auth/support/auth-harness.js';

/**
 * Stored settings and the configuration catalog against the real server, PostgreSQL and a real
 * OIDC authority, enforcement on. Two replicas share the database and the bootstrap file. Secrets
 * reach the configuration three ways, and none of them may show in a response: the file's
 * `secrets:` block, a stored secret, and an environment variable a `${NAME}` reference names.
 */
let idp: OidcAuthority;
let bench: AuthBench;
let a: NestFastifyApplication;
let b: NestFastifyApplication;
const BLOCK_SECRET = `ghp_Block${randomBytes(8).toString('hex')}`;
const STORED_SECRET = `ghp_Stored${randomBytes(8).toString('hex')}`;
const ENV_SECRET = `hook-${randomBytes(8).toString('hex')}`;
const SECRETS_KEY = randomBytes(32).toString('base64');
const LITERAL = `ghp_Literal${randomBytes(8).toString('hex')}`;
/** A literal the file itself holds at a secret field: the file may (the operator's choice), a response may not show it. */
const FILE_LITERAL = `pw-${randomBytes(8).toString('hex')}`;
const responses: string[] = [];
const REPO = { name: 'shop-web', platform: 'platform-a', url: 'https://github.com/acme/shop-web' };

type Method = 'GET' | 'PUT' | 'DELETE' | 'POST';
async function call(method: Method, url: string, token: string, payload?: unknown, app = a) {
  const res = await app.inject({ method, url, headers: bearer(token), ...(payload === undefined ? {} : { payload: payload as object }) });
  responses.push(res.body);
  return res;
}
const parallelRuns = (app: NestFastifyApplication) => app.get(ConfigService).config.queue.max_parallel_runs;
const keyIn = (body: { keys: { key: string }[] }, key: string) => body.keys.find((k) => k.key === key);
let root: string;
let carol: string;

beforeAll(async () => {
  idp = await OidcAuthority.start();
  bench = await createAuthBench('settings');
  bench.writeConfig({
    sandbox: { backend: 'in-process', registry: { server: 'registry.example', username: 'puller', password: FILE_LITERAL } },
    // A secret's value pasted where no secret belongs is scrubbed too.
    git: { author_name: `bot ${BLOCK_SECRET}` },
    secrets: { BLOCK_TOKEN: BLOCK_SECRET },
    webhooks: { platform_a_secret: '${HOOK_SECRET}' },
    queue: { max_parallel_runs: 3 },
    projects: { shop: { tracker: 'platform-a', repos: [{ ...REPO, auth_secret: '${BLOCK_TOKEN}' }], platform_a_trigger: { trigger_statuses: ['ready'] } } },
  });
  const env = bench.environment({
    SERVICE_AUTH_AUTHORITY: idp.authority, SERVICE_AUTH_AUDIENCE: idp.defaultAudience, SERVICE_AUTH_ENFORCE: 'true',
    SERVICE_ADMIN_GRANT: 'sub:root', SERVICE_AUTH_NAME_CLAIM: 'email', SERVICE_SECRETS_KEY: SECRETS_KEY, HOOK_SECRET: ENV_SECRET,
  });
  [a, b] = await Promise.all([bootApp(env), bootApp(env)]);
  await bench.db.query(`INSERT INTO access_custom_roles (name, permissions, updated_by) VALUES
    ('configurer', '{config.read,config.write}', 'test'), ('configreader', '{config.read}', 'test');
    UPDATE access_revision SET revision = revision + 1;`);
  root = idp.mint({ sub: 'root', claims: { email: 'root@example.test' } });
  carol = idp.mint({ sub: 'carol', claims: { email: 'carol@example.test', roles: ['configurer'] } });
  expect((await call('PUT', '/api/secrets/STORED_TOKEN', root, { value: STORED_SECRET })).statusCode).toBe(200);
}, 60_000);

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await bench?.cleanup();
  await idp?.stop();
});

describe('permissions', () => {
  it('refuses an operator every route (403 naming config.read / config.write), and a config.read holder the writes', async () => {
    const operator = idp.mint({ sub: 'op', claims: { roles: ['operator'] } });
    for (const url of ['/api/config', '/api/config/settings', '/api/config/settings/queue']) {
      const res = await call('GET', url, operator);
      expect(res.statusCode, url).toBe(403);
      expect(res.json().missingPermissions).toEqual(['config.read']);
    }
    const reader = idp.mint({ sub: 'cr', claims: { roles: ['configreader'] } });
    expect((await call('GET', '/api/config', reader)).statusCode).toBe(200);
    for (const token of [operator, reader]) {
      const put = await call('PUT', '/api/config/settings/queue.max_parallel_runs', token, { value: 5 });
      expect(put.statusCode).toBe(403);
      expect(put.json().missingPermissions).toEqual(['config.write']);
      expect((await call('DELETE', '/api/config/settings/queue.max_parallel_runs', token)).json().missingPermissions).toEqual(['config.write']);
    }
    expect(parallelRuns(a)).toBe(3);
  });
});

describe('GET /api/config', () => {
  it('lists every key in force with its source, the file, the revision, and the bootstrap settings flagged', async () => {
    const res = await call('GET', '/api/config', carol);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.file).toEqual({ path: bench.configPath, present: true });
    expect(body.revision).toMatch(/^\d+$/);
    expect(body.secrets).toEqual({ file: ['BLOCK_TOKEN'], stored: ['STORED_TOKEN'] });
    expect(keyIn(body, 'queue.max_parallel_runs')).toEqual({ key: 'queue.max_parallel_runs', value: 3, source: 'file' });
    expect(keyIn(body, 'queue.lease_ttl_seconds')).toEqual({ key: 'queue.lease_ttl_seconds', value: 30, source: 'default' });
    expect(keyIn(body, 'auth.name_claim')).toEqual({ key: 'auth.name_claim', value: 'email', source: 'environment', variable: 'SERVICE_AUTH_NAME_CLAIM' });
    expect(keyIn(body, 'webhooks.platform_a_secret')).toEqual({
      key: 'webhooks.platform_a_secret', value: '${HOOK_SECRET}', source: 'environment', references: [{ name: 'HOOK_SECRET', from: 'environment' }],
    });
    expect(keyIn(body, 'projects.shop.repos[0].auth_secret')).toMatchObject({ value: '${BLOCK_TOKEN}', source: 'file', references: [{ name: 'BLOCK_TOKEN', from: 'secrets-block' }] });
    expect(body.bootstrap).toEqual([
      { key: 'auth.authority', value: idp.authority, source: 'environment', variable: 'SERVICE_AUTH_AUTHORITY', bootstrap: true },
      { key: 'auth.audience', value: idp.defaultAudience, source: 'environment', variable: 'SERVICE_AUTH_AUDIENCE', bootstrap: true },
      { key: 'auth.enforce', value: true, source: 'environment', variable: 'SERVICE_AUTH_ENFORCE', bootstrap: true },
    ]);
    expect(body.keys.some((k: { key: string }) => k.key.startsWith('secrets'))).toBe(false);
    expect(keyIn(body, 'sandbox.registry.password')).toEqual({ key: 'sandbox.registry.password', value: '***', source: 'file' });
    expect(keyIn(body, 'git.author_name')).toMatchObject({ value: 'bot ***' });
  });
});

describe('a saved setting', () => {
  it('applies on this replica at once and on the other without a restart, shown there as stored', async () => {
    const put = await call('PUT', '/api/config/settings/queue.max_parallel_runs', carol, { value: 8 });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ key: 'queue.max_parallel_runs', value: 8, source: 'store', stored: { value: 8, updatedBy: 'carol@example.test' }, warnings: [], overriddenBy: [] });
    expect(parallelRuns(a)).toBe(8);
    await eventually(async () => (parallelRuns(b) === 8 ? true : undefined), 5_000, 'replica b applies the setting');
    expect(keyIn((await call('GET', '/api/config', carol, undefined, b)).json(), 'queue.max_parallel_runs')).toEqual({ key: 'queue.max_parallel_runs', value: 8, source: 'store' });

    const list = await call('GET', '/api/config/settings', carol, undefined, b);
    expect(list.json()).toEqual({ settings: [{ key: 'queue.max_parallel_runs', value: 8, updatedAt: expect.any(String), updatedBy: 'carol@example.test' }] });
    const block = await call('GET', '/api/config/settings/queue', carol);
    expect(block.statusCode).toBe(200);
    expect(block.json()).toMatchObject({ key: 'queue', value: { max_parallel_runs: 8, lease_ttl_seconds: 30 }, source: 'store', stored: null, bootstrap: false });
    expect(block.json().keys).toContainEqual({ key: 'queue.heartbeat_ttl_seconds', value: 120, source: 'default' });
  });

  it('refuses an invalid value (422 listing the finding) and leaves the setting in force', async () => {
    const res = await call('PUT', '/api/config/settings/queue.max_parallel_runs', carol, { value: 'many' });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'invalid_setting', findings: [{ field: 'queue.max_parallel_runs', severity: 'blocking', reason: expect.stringContaining('integer') }] });
    expect(parallelRuns(a)).toBe(8);
  });

  it('refuses an unknown key under the saved key, and an unknown key itself (422)', async () => {
    const typo = await call('PUT', '/api/config/settings/queue', carol, { value: { max_parallel_runs: 5, max_parralel_runs: 6 } });
    expect(typo.statusCode).toBe(422);
    expect(typo.json().findings).toEqual([expect.objectContaining({ field: 'queue.max_parralel_runs', reason: expect.stringContaining('unknown key') })]);
    const unknown = await call('PUT', '/api/config/settings/nonsense.key', carol, { value: 1 });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json()).toMatchObject({ code: 'invalid_setting', findings: [{ field: 'nonsense' }] });
  });

  it('refuses a bootstrap setting (409 saying a restart is needed)', async () => {
    for (const key of ['auth.authority', 'auth.enforce', 'auth']) {
      const res = await call('PUT', `/api/config/settings/${key}`, carol, { value: 'https://elsewhere.example' });
      expect(res.statusCode, key).toBe(409);
      expect(res.json()).toMatchObject({ code: 'bootstrap_setting', error: expect.stringContaining('restart') });
    }
    expect((await call('DELETE', '/api/config/settings/auth.audience', carol)).statusCode).toBe(409);
  });

  it('refuses a literal secret (422 pointing at /api/secrets) and takes a ${NAME} reference', async () => {
    const literal = await call('PUT', '/api/config/settings/projects.shop.repos', carol, { value: [{ ...REPO, auth_secret: LITERAL }] });
    expect(literal.statusCode).toBe(422);
    expect(literal.json()).toMatchObject({ code: 'literal_secret', fields: ['projects.shop.repos[0].auth_secret'], error: expect.stringContaining('/api/secrets') });
    const hook = await call('PUT', '/api/config/settings/webhooks.platform_a_secret', carol, { value: LITERAL });
    expect(hook.json()).toMatchObject({ code: 'literal_secret', fields: ['webhooks.platform_a_secret'] });
    const { rows } = await bench.db.query<{ row: string }>('SELECT row_to_json(c)::text AS row FROM config_changes c UNION ALL SELECT row_to_json(s)::text FROM config_settings s');
    for (const { row } of rows) expect(row).not.toContain(LITERAL);

    const reference = await call('PUT', '/api/config/settings/projects.shop.repos', carol, { value: [{ ...REPO, auth_secret: '${STORED_TOKEN}' }] });
    expect(reference.statusCode).toBe(200);
    expect(a.get(ConfigService).config.projects.shop?.repos[0]?.auth_secret).toBe(STORED_SECRET);
    expect(reference.json().keys).toContainEqual({
      key: 'projects.shop.repos[0].auth_secret', value: '${STORED_TOKEN}', source: 'store', references: [{ name: 'STORED_TOKEN', from: 'stored-secret' }],
    });
  });

  it('refuses malformed input with a clear 4xx, never a 500', async () => {
    expect((await call('PUT', '/api/config/settings/a..b', carol, { value: 1 })).json()).toMatchObject({ code: 'invalid_key' });
    expect((await call('PUT', '/api/config/settings/a..b', carol, { value: 1 })).statusCode).toBe(422);
    expect((await call('PUT', '/api/config/settings/secrets.X', carol, { value: 'x' })).json()).toMatchObject({ code: 'not_a_setting' });
    const claim = await call('PUT', '/api/config/settings/auth.name_claim', carol, { value: 'email' });
    expect(claim.statusCode).toBe(422);
    expect(claim.json()).toMatchObject({ code: 'not_a_setting', error: expect.stringContaining('PUT /api/access/claims') });
    const noValue = await call('PUT', '/api/config/settings/queue.max_parallel_runs', carol, {});
    expect(noValue.statusCode).toBe(400);
    expect(noValue.json().error).toContain('value is required');
    expect((await call('PUT', '/api/config/settings/queue.max_parallel_runs', carol, { value: 1, other: 2 })).statusCode).toBe(400);
    const huge = await call('PUT', '/api/config/settings/pipelines', carol, { value: { big: { commands: ['x'.repeat(70_000)] } } });
    expect(huge.statusCode).toBe(400);
    const text = await a.inject({ method: 'PUT', url: '/api/config/settings/queue.max_parallel_runs', headers: { ...bearer(carol), 'content-type': 'text/plain' }, payload: '8' });
    expect(text.statusCode).toBeGreaterThanOrEqual(400);
    expect(text.statusCode).toBeLessThan(500);
    expect((await call('GET', '/api/config/settings/queue.nope', carol)).statusCode).toBe(404);
    expect((await call('GET', '/api/config/settings/secrets', carol)).statusCode).toBe(404);
    expect((await call('GET', '/api/config/settings/a..b', carol)).statusCode).toBe(400);
    expect((await call('DELETE', '/api/config/settings/queue.lease_ttl_seconds', carol)).statusCode).toBe(404);
    // The router's own limit on a path parameter.
    expect((await call('PUT', `/api/config/settings/${'a'.repeat(120)}`, carol, { value: 1 })).statusCode).toBe(414);
    expect(parallelRuns(a)).toBe(8);
  });

  it('removed, goes back to the file value on both replicas', async () => {
    const del = await call('DELETE', '/api/config/settings/queue.max_parallel_runs', carol);
    expect(del.statusCode).toBe(200);
    expect(del.json()).toMatchObject({ key: 'queue.max_parallel_runs', value: 3, source: 'file', stored: null });
    expect(parallelRuns(a)).toBe(3);
    await eventually(async () => (parallelRuns(b) === 3 ? true : undefined), 5_000, 'replica b drops the setting');
    expect((await call('DELETE', '/api/config/settings/queue.max_parallel_runs', carol)).statusCode).toBe(404);
  });
});

describe('the change feed', () => {
  it('records each write attributed to the name_claim principal, and a revert restores the previous value (409 under a newer change)', async () => {
    const feed = (await call('GET', '/api/config/changes?limit=3', root)).json().changes;
    expect(feed.map((c: { kind: string; target: string }) => `${c.kind} ${c.target}`)).toEqual([
      'setting.delete setting:queue.max_parallel_runs', 'setting.put setting:projects.shop.repos', 'setting.put setting:queue.max_parallel_runs',
    ]);
    const [deleted, , put] = feed;
    expect(deleted).toMatchObject({ attribution: 'carol@example.test', before: { key: 'queue.max_parallel_runs', value: 8 }, after: null, revertOf: null });
    expect(put).toMatchObject({ attribution: 'carol@example.test', before: null, after: { key: 'queue.max_parallel_runs', value: 8 } });

    const stale = await call('POST', `/api/config/changes/${put.id}/revert`, root);
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ code: 'newer_change', newerChanges: [deleted.id] });

    const revert = await call('POST', `/api/config/changes/${deleted.id}/revert`, root);
    expect(revert.statusCode).toBe(201);
    expect(parallelRuns(a)).toBe(8);
    await eventually(async () => (parallelRuns(b) === 8 ? true : undefined), 5_000, 'replica b sees the revert');
    const [record] = (await call('GET', '/api/config/changes?limit=1', root)).json().changes;
    expect(record).toMatchObject({ id: revert.json().change, kind: 'setting.put', attribution: 'root@example.test', revertOf: deleted.id, after: { key: 'queue.max_parallel_runs', value: 8 } });

    // Saving what is already stored writes nothing and records nothing.
    const again = await call('PUT', '/api/config/settings/queue.max_parallel_runs', root, { value: 8 });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ change: null, value: 8, source: 'store' });
    const [latest] = (await call('GET', '/api/config/changes?limit=1', root)).json().changes;
    expect(latest.id).toBe(record.id);
  });
});

describe('secret values', () => {
  it('appear in no response of these routes', async () => {
    // Every route once more, now that a setting references a stored secret.
    for (const url of ['/api/config', '/api/config/settings', '/api/config/settings/projects', '/api/config/settings/webhooks', '/api/config/settings/sandbox', '/api/config/settings/git', '/api/config/changes']) {
      expect((await call('GET', url, root)).statusCode, url).toBe(200);
    }
    expect(responses.length).toBeGreaterThan(30);
    for (const body of responses) {
      for (const secret of [BLOCK_SECRET, STORED_SECRET, ENV_SECRET, SECRETS_KEY, LITERAL, FILE_LITERAL]) expect(body).not.toContain(secret);
    }
  });
});
