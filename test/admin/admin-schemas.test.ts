import { randomBytes } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OidcAuthority } from '../stand-ins/oidc-authority.js';
import { type AuthBench, bearer, bootApp, createAuthBench, eventually } from '../auth/support/auth-harness.js';
import { type OpenApiDocument, type Schema, schemaViolations } from '../support/schema-conformance.js';

/**
 * The documented answers of the secrets, stored settings, change feed, configuration, import and
 * archive-restore routes are the answers given: each route called for real (real server,
 * PostgreSQL and OIDC authority, enforcement on) with data that fills the optional fields, and
 * its body held against its schema in /api/docs/openapi.json in both directions. A restore goes
 * into an empty installation only, so B, on a fresh database, takes A's archive.
 */
let idp: OidcAuthority;
let benchA: AuthBench;
let benchB: AuthBench;
let a: NestFastifyApplication;
let b: NestFastifyApplication;
let root: string;
let document: Documented;

type Documented = OpenApiDocument & { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>> };
type Answer = Awaited<ReturnType<NestFastifyApplication['inject']>>;

const call = (app: NestFastifyApplication, method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, payload?: object | string | Buffer, type?: string) =>
  app.inject({ method, url, headers: { ...bearer(root), ...(type ? { 'content-type': type } : {}) }, ...(payload === undefined ? {} : { payload }) });

const schemaOf = (path: string, method: string, status: number): Schema => {
  const schema = document.paths[path]?.[method]?.responses[String(status)]?.content?.['application/json']?.schema;
  if (!schema) throw new Error(`no JSON schema documented for ${status} of ${method} ${path}`);
  return schema;
};
/** The answer has the documented 2xx status, and its body conforms to that status's schema. */
const conforms = (path: string, method: string, status: number, res: Answer) => {
  expect(res.statusCode, `${method} ${path}: ${res.body}`).toBe(status);
  expect(schemaViolations(document, schemaOf(path, method, status), res.json()), `${method} ${path}`).toEqual([]);
  return res.json();
};

const FILE_TOKEN = `whsec_${randomBytes(8).toString('hex')}`;
/** Filled so the catalog's optional fields appear: `${NAME}` references of both origins, an agent whose cost limit can warn. */
const fileWith = (auth: Record<string, unknown> = {}) => ({
  sandbox: { backend: 'in-process', allow_agents_in_process: true },
  secrets: { FILE_TOKEN, MODEL_KEY: `sk-${randomBytes(8).toString('hex')}` },
  webhooks: { platform_a_secret: '${FILE_TOKEN}' },
  auth: { authority: idp.authority, audience: idp.defaultAudience, ...auth },
  agent: { provider: 'openai-compatible', model: 'local-coder', base_url: 'http://127.0.0.1:9/v1', api_key: '${MODEL_KEY}' },
  projects: {
    shop: {
      tracker: 'platform-a',
      platform_a_trigger: { trigger_statuses: ['ready'], default_pipeline: 'code', done_status: 'done', needs_clarification_status: 'waiting' },
      repos: [{ name: 'shop-web', platform: 'platform-a', url: 'https://github.com/acme/shop-web', auth_secret: '${REPO_TOKEN}' }],
    },
  },
});

beforeAll(async () => {
  idp = await OidcAuthority.start();
  [benchA, benchB] = await Promise.all([createAuthBench('admin_schemas_a'), createAuthBench('admin_schemas_b')]);
  benchA.writeConfig(fileWith());
  benchB.writeConfig(fileWith());
  // Enforcement from the environment, so one key in force shows its `variable`; one key for both, as a restore needs.
  const env = { SERVICE_AUTH_ENFORCE: 'true', SERVICE_ADMIN_GRANT: 'sub:root', SERVICE_SECRETS_KEY: randomBytes(32).toString('base64') };
  [a, b] = await Promise.all([bootApp(benchA.environment(env)), bootApp(benchB.environment(env))]);
  root = idp.mint({ sub: 'root' });
  const res = await a.inject({ method: 'GET', url: '/api/docs/openapi.json' });
  expect(res.statusCode).toBe(200);
  document = res.json<Documented>();
}, 60_000);

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await Promise.all([benchA?.cleanup(), benchB?.cleanup()]);
  await idp?.stop();
});

describe('the documented answers of the admin routes are the answers given', () => {
  it('secrets: a save and the list (one secret referenced by the configuration, one not)', async () => {
    const saved = conforms('/api/secrets/{name}', 'put', 200, await call(a, 'PUT', '/api/secrets/REPO_TOKEN', { value: `ghp_${randomBytes(8).toString('hex')}` }));
    expect(saved.usedBy).toEqual(['projects.shop.repos[0].auth_secret']);
    conforms('/api/secrets/{name}', 'put', 200, await call(a, 'PUT', '/api/secrets/SPARE', { value: 'spare' }));
    const list = conforms('/api/secrets', 'get', 200, await call(a, 'GET', '/api/secrets'));
    expect(list).toMatchObject({ key: 'ok', secrets: [{ name: 'REPO_TOKEN', readable: true }, { name: 'SPARE', usedBy: [] }] });
  });

  it('settings: saves (one with a warning, one overridden below), the list, keys in force and a removal', async () => {
    // The default limit (5) already warns that it cannot be enforced without prices; another limit is a new warning, elsewhere than the key saved.
    const warned = conforms('/api/config/settings/{key}', 'put', 200, await call(a, 'PUT', '/api/config/settings/agent.max_cost_usd', { value: 7 }));
    expect(warned.warnings).toEqual([expect.objectContaining({ field: 'projects.shop.agent.prices', severity: 'advisory', reason: expect.stringContaining('(7)') })]);
    conforms('/api/config/settings/{key}', 'put', 200, await call(a, 'PUT', '/api/config/settings/queue.max_parallel_runs', { value: 3 }));
    const block = conforms('/api/config/settings/{key}', 'put', 200, await call(a, 'PUT', '/api/config/settings/queue', { value: { max_parallel_runs: 2, lease_ttl_seconds: 30 } }));
    expect(block).toMatchObject({ overriddenBy: ['queue.max_parallel_runs'], stored: { key: 'queue' } });
    conforms('/api/config/settings/{key}', 'put', 200, await call(a, 'PUT', '/api/config/settings/runs.retention_days', { value: null }));

    const list = conforms('/api/config/settings', 'get', 200, await call(a, 'GET', '/api/config/settings'));
    expect(list.settings.map((s: { key: string }) => s.key)).toEqual(['agent.max_cost_usd', 'queue', 'queue.max_parallel_runs', 'runs.retention_days']);
    for (const key of ['queue', 'auth', 'webhooks', 'projects.shop', 'agent.max_cost_usd']) {
      conforms('/api/config/settings/{key}', 'get', 200, await call(a, 'GET', `/api/config/settings/${key}`));
    }
    const leaves = (await call(a, 'GET', '/api/config/settings/auth')).json().keys;
    expect(leaves).toContainEqual(expect.objectContaining({ key: 'auth.enforce', variable: 'SERVICE_AUTH_ENFORCE', bootstrap: true }));
    const references = [...(await call(a, 'GET', '/api/config/settings/projects.shop')).json().keys, ...(await call(a, 'GET', '/api/config/settings/webhooks')).json().keys]
      .flatMap((l: { references?: { from: string }[] }) => l.references ?? []).map((r) => r.from);
    expect(new Set(references)).toEqual(new Set(['stored-secret', 'secrets-block']));

    const removed = conforms('/api/config/settings/{key}', 'delete', 200, await call(a, 'DELETE', '/api/config/settings/agent.max_cost_usd'));
    expect(removed).toMatchObject({ value: 5, source: 'default', stored: null });
  });

  it('the change feed, and a revert answered with the 201 it documents', async () => {
    const feed = conforms('/api/config/changes', 'get', 200, await call(a, 'GET', '/api/config/changes'));
    const queueSave = feed.changes.find((c: { target: string }) => c.target === 'setting:queue.max_parallel_runs');
    const reverted = conforms('/api/config/changes/{id}/revert', 'post', 201, await call(a, 'POST', `/api/config/changes/${queueSave.id}/revert`));
    expect(reverted.reverted).toBe(queueSave.id);
    const after = conforms('/api/config/changes', 'get', 200, await call(a, 'GET', '/api/config/changes?limit=200'));
    // Every kind of before/after the routes above wrote: null, a masked secret, a setting's number, block and null value.
    expect(after.changes[0]).toMatchObject({ revertOf: queueSave.id, after: null });
    expect(after.changes.map((c: { kind: string }) => c.kind)).toEqual(expect.arrayContaining(['secret.put', 'setting.put', 'setting.delete']));
  });

  it('an import of the installation\'s own export', async () => {
    const exported = await call(a, 'GET', '/api/config/export');
    expect(exported.statusCode).toBe(200);
    const imported = conforms('/api/config/import', 'post', 200, await call(a, 'POST', '/api/config/import', exported.body, 'application/yaml'));
    expect(imported.imported.settings).toEqual(expect.arrayContaining(['queue']));
    conforms('/api/config/changes', 'get', 200, await call(a, 'GET', '/api/config/changes'));
  });

  it('an import naming a reference this installation cannot resolve (the unresolved list filled), then the export back', async () => {
    const exported = await call(a, 'GET', '/api/config/export');
    expect(exported.statusCode).toBe(200);
    const missing = exported.body.replace('${REPO_TOKEN}', '${NOT_ON_A}');
    expect(missing).not.toBe(exported.body);
    const imported = conforms('/api/config/import', 'post', 200, await call(a, 'POST', '/api/config/import', missing, 'application/yaml'));
    expect(imported.unresolved).toEqual([{ name: 'NOT_ON_A', used_by: ['projects.shop.repos[0].auth_secret'] }]);
    expect(conforms('/api/config/import', 'post', 200, await call(a, 'POST', '/api/config/import', exported.body, 'application/yaml')).unresolved).toEqual([]);
  });

  it('the configuration in force, a bootstrap setting due a restart included', async () => {
    conforms('/api/config', 'get', 200, await call(a, 'GET', '/api/config'));
    benchA.writeConfig(fileWith({ audience: 'another-audience' }));
    const due = await eventually(async () => {
      const keys: { key: string; restartDue?: true }[] = (await call(a, 'GET', '/api/config')).json().keys;
      return keys.find((k) => k.restartDue);
    }, 10_000, 'auth.audience due a restart');
    expect(due).toMatchObject({ key: 'auth.audience', bootstrap: true, configured: 'another-audience' });
    const overview = conforms('/api/config', 'get', 200, await call(a, 'GET', '/api/config'));
    expect(overview.bootstrap).toContainEqual(expect.objectContaining({ key: 'auth.audience', restartDue: true }));
    conforms('/api/config/settings/{key}', 'get', 200, await call(a, 'GET', '/api/config/settings/auth'));
  });

  it('an archive restore into an empty installation', async () => {
    const archive = await call(a, 'GET', '/api/archive');
    expect(archive.statusCode).toBe(200);
    const restored = conforms('/api/archive', 'post', 200, await call(b, 'POST', '/api/archive', archive.rawPayload, 'application/gzip'));
    expect(restored.rows.config_settings).toBeGreaterThan(0);
  });

  it('a field the schema does not name is caught (the check can fail)', async () => {
    const list = (await call(a, 'GET', '/api/secrets')).json();
    expect(schemaViolations(document, schemaOf('/api/secrets', 'get', 200), { ...list, secrets: [{ ...list.secrets[0], value: 'leaked' }] }))
      .toEqual(['$.secrets[0].value is not in the schema']);
  });
});
