import { randomBytes } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { ConfigService } from '../../src/config/config.service.js';
import { StoredConfigSync } from '../../src/stored-config/stored-config-sync.service.js';
import { OidcAuthority } from '../stand-ins/oidc-authority.js';
import { type AuthBench, bearer, bootApp, createAuthBench } from '../auth/support/auth-harness.js';
import type { IdentityBody } from '../auth/support/identity-types.js';

/**
 * Configuration export and import between two installations, each with its own PostgreSQL
 * database, bootstrap file and secrets key, against the real server and a real OIDC authority,
 * enforcement on. A is set up through its routes and, for stored settings, by writing
 * `config_settings` rows as the settings routes would; B holds different records that the import
 * must replace, and the one stored secret A's configuration needs.
 */
let idp: OidcAuthority;
let benchA: AuthBench;
let benchB: AuthBench;
let a: NestFastifyApplication;
let b: NestFastifyApplication;
let root: string;
const REPO_TOKEN = `ghp_Repo${randomBytes(8).toString('hex')}`;
const FILE_TOKEN = `whsec_File${randomBytes(8).toString('hex')}`;
const SPARE = `spare-${randomBytes(8).toString('hex')}`;
const OBSERVED = `observed-${randomBytes(4).toString('hex')}`;
const responses: string[] = [];
let exportA = '';
const LITERAL = `sk-literal${randomBytes(8).toString('hex')}`;

type Method = 'GET' | 'PUT' | 'POST' | 'DELETE';
async function call(app: NestFastifyApplication, method: Method, url: string, token: string, payload?: unknown, contentType?: string) {
  const headers = { ...bearer(token), ...(contentType ? { 'content-type': contentType } : {}) };
  const res = await app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as string }) });
  responses.push(res.body);
  return res;
}
const importYaml = (app: NestFastifyApplication, text: string, type = 'application/yaml', token = root) => call(app, 'POST', '/api/config/import', token, text, type);
const identity = async (app: NestFastifyApplication, token: string) => (await call(app, 'GET', '/api/identity', token)).json<IdentityBody>();
const withoutTimestamp = (yaml: string) => yaml.replace(/^exported_at: .*$/m, 'exported_at: <time>');

/** Everything an import may write, and what counts its writes. */
async function tables(bench: AuthBench) {
  const read = async (sql: string) => (await bench.db.query(sql)).rows;
  return {
    settings: await read('SELECT key, value FROM config_settings ORDER BY key'),
    grants: await read('SELECT claim, value, role FROM access_person_grants ORDER BY claim, value, role'),
    people: await read('SELECT claim, value FROM access_people ORDER BY claim, value'),
    groups: await read('SELECT group_value, roles FROM access_group_roles ORDER BY group_value'),
    roles: await read('SELECT name, permissions FROM access_custom_roles ORDER BY name'),
    claims: await read('SELECT role_claim, group_claim, name_claim FROM access_claim_names'),
    revisions: await read('SELECT (SELECT revision FROM config_revision) AS config, (SELECT revision FROM access_revision) AS access'),
    changes: await read('SELECT count(*)::int AS n FROM config_changes'),
  };
}

const auth = () => ({ SERVICE_AUTH_AUTHORITY: idp.authority, SERVICE_AUTH_AUDIENCE: idp.defaultAudience, SERVICE_AUTH_ENFORCE: 'true' });
const project = {
  tracker: 'platform-a',
  repos: [{ name: 'shop-web', platform: 'platform-a', url: 'https://github.com/acme/shop-web', auth_secret: '${REPO_TOKEN}' }],
};

beforeAll(async () => {
  idp = await OidcAuthority.start();
  [benchA, benchB] = await Promise.all([createAuthBench('exchange_a'), createAuthBench('exchange_b')]);
  benchA.writeConfig({
    sandbox: { backend: 'in-process' },
    secrets: { FILE_TOKEN },
    webhooks: { platform_a_secret: '${FILE_TOKEN}' },
    queue: { max_parallel_runs: 2, lease_ttl_seconds: 30 },
    projects: { shop: project },
  });
  // B's file differs: a capacity block A never had (the import must mask it), another queue, no projects.
  benchB.writeConfig({ sandbox: { backend: 'in-process' }, secrets: { FILE_TOKEN }, capacity: { cpu: 2 }, queue: { max_parallel_runs: 9 } });
  const key = () => randomBytes(32).toString('base64');
  [a, b] = await Promise.all([
    bootApp(benchA.environment({ ...auth(), SERVICE_ADMIN_GRANT: 'sub:root', SERVICE_SECRETS_KEY: key() })),
    bootApp(benchB.environment({ ...auth(), SERVICE_SECRETS_KEY: key() })),
  ]);
  root = idp.mint({ sub: 'root', claims: { email: 'root@example.test' } });

  // A: custom roles, claim names, grants, group mappings, stored secrets, stored settings, an observation.
  for (const [name, permissions] of Object.entries({
    auditor: ['runs.read', 'diagnostics.read'], 'exporter-only': ['config.export'], 'importer-only': ['config.import'],
    exporter: ['config.export', 'secrets.read'], importer: ['config.import', 'secrets.write'],
  })) expect((await call(a, 'PUT', `/api/access/roles/${name}`, root, { permissions })).statusCode).toBe(200);
  expect((await call(a, 'PUT', '/api/access/claims', root, { name_claim: 'email' })).statusCode).toBe(200);
  expect((await call(a, 'PUT', '/api/access/people/email/root@example.test', root, { roles: ['admin'] })).statusCode).toBe(200);
  expect((await call(a, 'PUT', '/api/access/people/email/ann@example.test', root, { roles: ['auditor'] })).statusCode).toBe(200);
  expect((await call(a, 'PUT', '/api/access/groups/%2Fplatform-admins', root, { roles: ['admin'] })).statusCode).toBe(200);
  expect((await call(a, 'PUT', '/api/access/groups/ops', root, { roles: ['operator', 'auditor'] })).statusCode).toBe(200);
  expect((await call(a, 'PUT', '/api/secrets/REPO_TOKEN', root, { value: REPO_TOKEN })).statusCode).toBe(200);
  await benchA.db.query(`INSERT INTO access_observations (subject, name_claim, name_value, role_values, group_values, last_seen)
    VALUES ($1, 'email', $2, '{auditor}', $3, now())`, [OBSERVED, `${OBSERVED}@example.test`, [`${OBSERVED}-group`]]);
  const settings = { 'queue.max_parallel_runs': 5, observation_retention_days: 30, git: { author_name: 'A bot' } };
  for (const [k, v] of Object.entries(settings)) await benchA.db.query("INSERT INTO config_settings (key, value, updated_by) VALUES ($1, $2::jsonb, 'test')", [k, JSON.stringify(v)]);
  await benchA.db.query('UPDATE config_revision SET revision = revision + 1');
  // Written as SQL: A's own poller applies it (config_revision moved); wait for that load.
  await a.get(StoredConfigSync).refresh();
  expect(a.get(ConfigService).config.queue.max_parallel_runs).toBe(5);

  // B: records the import replaces, a person only seen (kept), and the stored secret A's configuration needs.
  await benchB.db.query(`INSERT INTO access_person_grants (claim, value, role, created_by) VALUES ('sub', 'root', 'admin', 'test');
    INSERT INTO access_custom_roles (name, permissions, updated_by) VALUES ('b-only', '{runs.read}', 'test');
    INSERT INTO config_settings (key, value, updated_by) VALUES ('git.author_name', '"B bot"', 'test');
    INSERT INTO access_observations (subject, name_claim, name_value, role_values, group_values, last_seen) VALUES ('bob', 'sub', 'bob', '{}', '{}', now());
    UPDATE access_revision SET revision = revision + 1;`);
  expect((await call(b, 'PUT', '/api/access/people/sub/bob', root, { roles: ['reader'] })).statusCode).toBe(200);
  expect((await call(b, 'PUT', '/api/access/groups/b-group', root, { roles: ['reader'] })).statusCode).toBe(200);
  expect((await call(b, 'PUT', '/api/secrets/REPO_TOKEN', root, { value: REPO_TOKEN })).statusCode).toBe(200);
  expect((await call(b, 'PUT', '/api/secrets/UNUSED_ON_B', root, { value: SPARE })).statusCode).toBe(200);
  expect((await call(b, 'DELETE', '/api/secrets/UNUSED_ON_B', root)).statusCode).toBe(204);
}, 90_000);

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await Promise.all([benchA?.cleanup(), benchB?.cleanup()]);
  await idp?.stop();
});

describe('permissions', () => {
  it('export needs config.export and secrets.read together, import config.import and secrets.write together (403 naming the missing one)', async () => {
    const exporterOnly = await call(a, 'GET', '/api/config/export', idp.mint({ sub: 'e', claims: { roles: ['exporter-only'] } }));
    expect(exporterOnly.statusCode).toBe(403);
    expect(exporterOnly.json()).toMatchObject({ missingPermissions: ['secrets.read'] });
    const importerOnly = await importYaml(a, 'format: pipeline-service-config', 'application/yaml', idp.mint({ sub: 'i', claims: { roles: ['importer-only'] } }));
    expect(importerOnly.statusCode).toBe(403);
    expect(importerOnly.json()).toMatchObject({ missingPermissions: ['secrets.write'] });
    const reader = await call(a, 'GET', '/api/config/export', idp.mint({ sub: 'r', claims: { roles: ['reader'] } }));
    expect(reader.json()).toMatchObject({ missingPermissions: ['config.export', 'secrets.read'] });

    expect((await call(a, 'GET', '/api/config/export', idp.mint({ sub: 'e2', claims: { roles: ['exporter'] } }))).statusCode).toBe(200);
    // Both permissions pass the guard; the empty document is then refused on its merits.
    const importer = await importYaml(a, '{}', 'application/yaml', idp.mint({ sub: 'i2', claims: { roles: ['importer'] } }));
    expect(importer.statusCode).toBe(422);
  });
});

describe('export', () => {
  it('answers one versioned YAML document: effective configuration with references as written, access records, secret names', async () => {
    const res = await call(a, 'GET', '/api/config/export', root);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/yaml; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="pipeline-service-config-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ\.yaml"$/);
    exportA = res.body;
    const doc = parseYaml(exportA);
    expect(doc).toMatchObject({ format: 'pipeline-service-config', version: 1, exported_at: expect.any(String), exported_by: 'root@example.test' });
    expect(doc.configuration).toEqual({
      git: { author_name: 'A bot' },
      observation_retention_days: 30,
      projects: { shop: project },
      queue: { lease_ttl_seconds: 30, max_parallel_runs: 5 },
      sandbox: { backend: 'in-process' },
      webhooks: { platform_a_secret: '${FILE_TOKEN}' },
    });
    expect(doc.access).toEqual({
      claim_names: { role_claim: 'roles', group_claim: 'groups', name_claim: 'email' },
      people: [{ claim: 'email', value: 'ann@example.test', roles: ['auditor'] }, { claim: 'email', value: 'root@example.test', roles: ['admin'] }],
      groups: { ops: ['auditor', 'operator'], 'platform-admins': ['admin'] },
      roles: {
        auditor: ['diagnostics.read', 'runs.read'], exporter: ['config.export', 'secrets.read'], 'exporter-only': ['config.export'],
        importer: ['config.import', 'secrets.write'], 'importer-only': ['config.import'],
      },
    });
    expect(doc.secrets).toEqual([
      { name: 'FILE_TOKEN', source: 'file', used_by: ['webhooks.platform_a_secret'] },
      { name: 'REPO_TOKEN', source: 'stored', used_by: ['projects.shop.repos[0].auth_secret'] },
    ]);
  });

  it('never carries an observation (nor anything only an observation knows: its subject, name or groups)', () => {
    expect(exportA).not.toContain(OBSERVED);
    expect(exportA).not.toContain('last_seen');
  });
});

describe('import', () => {
  it('into another installation (its own database) reproduces A: access, effective configuration, behaviour, and the same export', async () => {
    const before = await tables(benchB);
    const res = await importYaml(b, exportA);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      imported: { settings: ['capacity', 'git', 'observation_retention_days', 'projects', 'queue', 'sandbox', 'webhooks'], people: 2, groups: 2, roles: 5 },
      change: expect.any(Number),
      warnings: [],
      unresolved: [],
    });
    const after = await tables(benchB);
    expect(Number(after.revisions[0].config)).toBe(Number(before.revisions[0].config) + 1);
    expect(Number(after.revisions[0].access)).toBe(Number(before.revisions[0].access) + 1);
    // Replaced, not merged: B's own setting, role, group and people are gone; the block only B's file had is masked.
    expect(after.settings).toContainEqual({ key: 'capacity', value: null });
    expect(after.settings.map((r) => r.key)).not.toContain('git.author_name');
    expect(after.roles.map((r) => r.name)).not.toContain('b-only');
    expect(after.groups.map((r) => r.group_value)).toEqual(['ops', 'platform-admins']);
    expect(after.people).toEqual([{ claim: 'email', value: 'ann@example.test' }, { claim: 'email', value: 'root@example.test' }]);
    // What was observed of a person the import leaves out stays: observations are not configuration.
    expect((await benchB.db.query("SELECT subject FROM access_observations WHERE subject = 'bob'")).rows).toEqual([{ subject: 'bob' }]);

    const exportB = await call(b, 'GET', '/api/config/export', root);
    expect(exportB.statusCode).toBe(200);
    expect(withoutTimestamp(exportB.body)).toBe(withoutTimestamp(exportA));
    expect(b.get(ConfigService).config).toEqual(a.get(ConfigService).config);

    const tokens = {
      root, ann: idp.mint({ sub: 'ann-sub', claims: { email: 'ann@example.test' } }),
      admins: idp.mint({ sub: 'x', claims: { groups: ['/platform-admins'] } }), ops: idp.mint({ sub: 'y', claims: { groups: ['ops'] } }),
      bob: idp.mint({ sub: 'bob' }),
    };
    for (const [who, token] of Object.entries(tokens)) {
      const [onA, onB] = [await identity(a, token), await identity(b, token)];
      expect({ roles: onB.roles, permissions: onB.permissions }, who).toEqual({ roles: onA.roles, permissions: onA.permissions });
    }
    expect((await identity(b, tokens.ann)).roles).toEqual(['auditor']);
    expect((await identity(b, tokens.bob)).roles).toEqual([]);
  });

  it('appears in the change feed, attributed, and is not revertible; an older change under it cannot be reverted either', async () => {
    const feed = (await call(b, 'GET', '/api/config/changes?limit=50', root)).json();
    const [record] = feed.changes;
    expect(record).toMatchObject({ kind: 'config.import', target: 'configuration', attribution: 'root', revertOf: null });
    expect(record.before.settings).toEqual({ 'git.author_name': 'B bot' });
    expect(Object.keys(record.after.settings).sort()).toEqual(['capacity', 'git', 'observation_retention_days', 'projects', 'queue', 'sandbox', 'webhooks']);
    expect(record.after.access.people).toHaveLength(2);
    const revert = await call(b, 'POST', `/api/config/changes/${record.id}/revert`, root);
    expect(revert.statusCode).toBe(409);
    expect(revert.json()).toMatchObject({ code: 'not_revertible' });
    const bobGrant = feed.changes.find((c: { target: string }) => c.target === 'person:sub:bob');
    const stale = await call(b, 'POST', `/api/config/changes/${bobGrant.id}/revert`, root);
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ code: 'newer_change', newerChanges: [record.id] });
  });

  it('with several problems lists every one of them and changes nothing (a reference B cannot resolve is none of them)', async () => {
    const before = await tables(benchB);
    const doc = parseYaml(exportA);
    doc.configuration.auth = { enforce: false };
    doc.configuration.queue.max_parallel_runs = 'many';
    doc.configuration.projects.shop.repos[0].auth_secret = '${NOT_ON_B}';
    doc.configuration.bogus_block = { a: 1 };
    doc.access.roles.auditor = ['Runs.Read'];
    doc.access.roles.Reader = ['runs.read'];
    doc.access.people.push({ claim: 'email', value: 'ghost@example.test', roles: ['ghost-role'] });
    const res = await call(b, 'POST', '/api/config/import', root, JSON.stringify(doc), 'application/json');
    expect(res.statusCode).toBe(422);
    const body = res.json();
    expect(body.error).toBe('invalid_import');
    expect(body.problems.map((p: { path: string }) => p.path).sort()).toEqual([
      'access.people[2]', 'access.roles.Reader', 'access.roles.auditor',
      'configuration.auth', 'configuration.bogus_block', 'configuration.queue.max_parallel_runs',
    ]);
    expect(await tables(benchB)).toEqual(before);
  });

  it('that would leave no route to admin is refused naming the four routes, beside its other problems; nothing changes', async () => {
    const before = await tables(benchB);
    const doc = parseYaml(exportA);
    doc.version = 2;
    doc.access.people = doc.access.people.filter((p: { roles: string[] }) => !p.roles.includes('admin'));
    delete doc.access.groups['platform-admins'];
    const res = await importYaml(b, toYaml(doc), 'text/yaml');
    expect(res.statusCode).toBe(422);
    const problems = res.json().problems as { path: string; error: string }[];
    expect(problems.map((p) => p.path)).toEqual(['version', 'access']);
    expect(problems[1]!.error).toMatch(/no route to admin.*person-grant, group-mapping, role-claim, admin-grant/);
    expect(await tables(benchB)).toEqual(before);
  });

  it('refuses a body that is not YAML (422 at the root), of another type (415), or too large (413)', async () => {
    const broken = await importYaml(b, 'format: [unclosed');
    expect(broken.statusCode).toBe(422);
    expect(broken.json()).toMatchObject({ error: 'invalid_import', problems: [{ path: '' }] });
    expect((await importYaml(b, exportA, 'text/plain')).statusCode).toBe(415);
    expect((await importYaml(b, `# ${'x'.repeat(1024 * 1024)}\n${exportA}`)).statusCode).toBe(413);
  });
});

/**
 * Moving configuration onto a new installation: secrets never travel, so every `${NAME}` of A's
 * export resolves to nothing on C until its operator gives the names. Spec: such a reference counts
 * as unconfigured (a finding), not an error; the import is applied and names what is left to set.
 */
describe('import into a new installation that has none of the secrets yet', () => {
  let benchC: AuthBench;
  let c: NestFastifyApplication;
  type Finding = { severity: string; field: string | null; reason: string };
  const referenceFindings = async () => ((await call(c, 'GET', '/api/config/findings', root)).json().findings as Finding[])
    .filter((f) => f.field === 'projects.shop.repos[0].auth_secret' || f.field === 'webhooks.platform_a_secret');
  const repoKey = async () => ((await call(c, 'GET', '/api/config', root)).json().keys as { key: string; references?: unknown }[])
    .find((k) => k.key === 'projects.shop.repos[0].auth_secret');

  beforeAll(async () => {
    benchC = await createAuthBench('exchange_c');
    benchC.writeConfig({ sandbox: { backend: 'in-process' } });
    c = await bootApp(benchC.environment({ ...auth(), SERVICE_ADMIN_GRANT: 'sub:root', SERVICE_SECRETS_KEY: randomBytes(32).toString('base64') }));
  }, 60_000);

  afterAll(async () => {
    await c?.close();
    await benchC?.cleanup();
  });

  it('refuses a literal secret there all the same, listing only it (the unresolved references are no problem), and applies nothing', async () => {
    const doc = parseYaml((await call(a, 'GET', '/api/config/export', root)).body);
    doc.configuration.agent = { api_key: LITERAL };
    const before = await tables(benchC);
    const res = await call(c, 'POST', '/api/config/import', root, JSON.stringify(doc), 'application/json');
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ error: 'invalid_import', problems: [{ path: 'configuration.agent.api_key', error: expect.stringContaining('secret value') }] });
    expect(await tables(benchC)).toEqual(before);
  });

  it('applies A\'s export, answers each unresolved reference with the keys using it, and a secret set next resolves it', async () => {
    const exported = await call(a, 'GET', '/api/config/export', root);
    const res = await importYaml(c, exported.body);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      imported: { settings: ['git', 'observation_retention_days', 'projects', 'queue', 'sandbox', 'webhooks'], people: 2, groups: 2, roles: 5 },
      unresolved: [
        { name: 'FILE_TOKEN', used_by: ['webhooks.platform_a_secret'] },
        { name: 'REPO_TOKEN', used_by: ['projects.shop.repos[0].auth_secret'] },
      ],
    });
    // Applied: C runs A's configuration, the references as written and counted as unconfigured.
    expect((await tables(benchC)).settings.map((r) => r.key)).toEqual(['git', 'observation_retention_days', 'projects', 'queue', 'sandbox', 'webhooks']);
    expect(await repoKey()).toMatchObject({ value: '${REPO_TOKEN}', references: [{ name: 'REPO_TOKEN', from: 'unresolved' }] });
    expect(c.get(ConfigService).config.queue.max_parallel_runs).toBe(5);
    expect((await referenceFindings()).map((f) => [f.field, f.severity])).toEqual(
      expect.arrayContaining([['projects.shop.repos[0].auth_secret', 'blocking'], ['webhooks.platform_a_secret', 'blocking']]));

    expect((await call(c, 'PUT', '/api/secrets/REPO_TOKEN', root, { value: REPO_TOKEN })).statusCode).toBe(200);
    expect(await repoKey()).toMatchObject({ references: [{ name: 'REPO_TOKEN', from: 'stored-secret' }] });
    expect(c.get(ConfigService).config.projects.shop?.repos[0]?.auth_secret).toBe(REPO_TOKEN);
    expect((await referenceFindings()).map((f) => f.field)).toEqual(['webhooks.platform_a_secret']);
  });
});

describe('secret values', () => {
  it('a literal value at a secret field leaves as ***, and an import refuses it until it is a ${NAME} reference', async () => {
    await benchA.db.query("INSERT INTO config_settings (key, value, updated_by) VALUES ('agent.api_key', $1::jsonb, 'test'); UPDATE config_revision SET revision = revision + 1;"
      .replace('$1', `'${JSON.stringify(LITERAL)}'`));
    await a.get(StoredConfigSync).refresh();
    try {
      const res = await call(a, 'GET', '/api/config/export', root);
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toContain(LITERAL);
      const doc = parseYaml(res.body);
      expect(doc.configuration.agent.api_key).toBe('***');
      const before = await tables(benchB);
      const refused = await importYaml(b, res.body);
      expect(refused.statusCode).toBe(422);
      expect(refused.json().problems).toEqual([expect.objectContaining({ path: 'configuration.agent.api_key', error: expect.stringContaining('secret value') })]);
      expect(await tables(benchB)).toEqual(before);
    } finally {
      await benchA.db.query("DELETE FROM config_settings WHERE key = 'agent.api_key'; UPDATE config_revision SET revision = revision + 1;");
      await a.get(StoredConfigSync).refresh();
    }
  });

  it('appear in no response body: not a stored secret, not the file secrets block, not a literal at a secret field', () => {
    expect(responses.length).toBeGreaterThan(20);
    for (const body of responses) {
      for (const value of [REPO_TOKEN, FILE_TOKEN, SPARE, LITERAL]) expect(body).not.toContain(value);
    }
  });
});
