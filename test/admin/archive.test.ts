import { randomBytes, randomUUID } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ObservationRecorder } from '../../src/access/observation-recorder.service.js';
import { readCatalog, restoreOrder } from '../../src/admin/archive/archive-catalog.js';
import { ArchiveExporter } from '../../src/admin/archive/archive-export.service.js';
import { insertRowsSql, selectRowsSql } from '../../src/admin/archive/archive-sql.js';
import { MERGED_TABLES, NOT_ARCHIVED, REVISION_TABLES } from '../../src/admin/archive/archive-table-policy.js';
import { ConfigService } from '../../src/config/config.service.js';
import { OidcAuthority } from '../stand-ins/oidc-authority.js';
import { type AuthBench, bearer, bootApp, createAuthBench, eventually } from '../auth/support/auth-harness.js';
import { createTestDatabase } from '../support/test-database.js';

/**
 * The whole-database archive against the real server, PostgreSQL and a real OIDC authority,
 * enforcement on: installation A is filled (through its routes where they exist, by SQL where they
 * do not, with the awkward values: bytea, JSON null beside SQL NULL, arrays, microseconds, a bigint
 * past 2^53, unicode), archived, and restored into installation B on a fresh migrated database.
 * Both share SERVICE_SECRETS_KEY, as a restore needs.
 */
let idp: OidcAuthority;
let benchA: AuthBench;
let benchB: AuthBench;
let a: NestFastifyApplication;
let b: NestFastifyApplication;
let root: string;
let archive: Buffer;
const SECRET = `ghp_Archived${randomBytes(8).toString('hex')}`;
const RUN = randomUUID();
const OTHER_RUN = randomUUID();

const ident = pg.escapeIdentifier;
const gzip = (text: string) => gzipSync(Buffer.from(text, 'utf8'));
const linesOf = (gz: Buffer) => gunzipSync(gz).toString('utf8').split('\n').filter((l) => l !== '');
const relined = (lines: string[]) => gzip(`${lines.join('\n')}\n`);
const upload = (app: NestFastifyApplication, token: string, payload: Buffer | string, type = 'application/gzip') =>
  app.inject({ method: 'POST', url: '/api/archive', headers: { ...bearer(token), 'content-type': type }, payload });
const call = (app: NestFastifyApplication, method: 'GET' | 'PUT' | 'POST', url: string, payload?: object) =>
  app.inject({ method, url, headers: bearer(root), ...(payload ? { payload } : {}) });
const authSecret = (app: NestFastifyApplication) => app.get(ConfigService).config.projects.shop?.repos[0]?.auth_secret ?? null;

/** The tables a restore writes, as the catalog lists them. */
async function archivedTables(db: pg.Pool): Promise<string[]> {
  return restoreOrder(await readCatalog(async (sql, p) => (await db.query(sql, p)).rows)).map((t) => t.name);
}

/** Every row of a table in its exact text form (SQL NULL is empty, a JSON null is `null`), sorted. */
async function dump(db: pg.Pool, table: string): Promise<string[]> {
  return (await db.query<{ row: string }>(`SELECT t::text AS row FROM ${ident(table)} AS t ORDER BY 1`)).rows.map((r) => r.row);
}

/** Every archived table's rows, observations aside (each request adds or refreshes the caller's). */
async function snapshot(db: pg.Pool, tables: string[]): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of tables) if (!MERGED_TABLES.includes(table)) out[table] = await dump(db, table);
  return out;
}

beforeAll(async () => {
  idp = await OidcAuthority.start();
  [benchA, benchB] = await Promise.all([createAuthBench('archive_a'), createAuthBench('archive_b')]);
  const config = {
    sandbox: { backend: 'in-process' },
    projects: { shop: { tracker: 'platform-a', repos: [{ name: 'shop-web', platform: 'platform-a', url: 'https://github.com/acme/shop-web', auth_secret: '${REPO_TOKEN}' }] } },
  };
  benchA.writeConfig(config);
  benchB.writeConfig(config);
  const env = {
    SERVICE_AUTH_AUTHORITY: idp.authority, SERVICE_AUTH_AUDIENCE: idp.defaultAudience, SERVICE_AUTH_ENFORCE: 'true',
    SERVICE_ADMIN_GRANT: 'sub:root', SERVICE_AUTH_NAME_CLAIM: 'email', SERVICE_SECRETS_KEY: randomBytes(32).toString('base64'),
  };
  [a, b] = await Promise.all([bootApp(benchA.environment(env)), bootApp(benchB.environment(env))]);
  root = idp.mint({ sub: 'root', claims: { email: 'root@example.test' } });
}, 60_000);

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await Promise.all([benchA?.cleanup(), benchB?.cleanup()]);
  await idp?.stop();
});

/** Installation A with rows in every archived table. */
async function fillInstallationA(): Promise<void> {
  // Through the routes: a secret, grants, a group mapping, a custom role, claim names, and a revert (a self-reference).
  expect((await call(a, 'PUT', '/api/secrets/REPO_TOKEN', { value: SECRET })).statusCode).toBe(200);
  expect((await call(a, 'PUT', '/api/access/people/email/dave@example.test', { roles: ['operator'] })).statusCode).toBe(200);
  expect((await call(a, 'PUT', '/api/access/people/email/erin@example.test', { roles: ['reader'] })).statusCode).toBe(200);
  const erin = (await call(a, 'GET', '/api/config/changes?limit=1')).json().changes[0].id as number;
  expect((await call(a, 'POST', `/api/config/changes/${erin}/revert`)).statusCode).toBe(201);
  expect((await call(a, 'PUT', '/api/access/groups/ops-on-call', { roles: ['operator'] })).statusCode).toBe(200);
  expect((await call(a, 'PUT', '/api/access/roles/auditor', { permissions: ['runs.read', 'config.read'] })).statusCode).toBe(200);
  expect((await call(a, 'PUT', '/api/access/claims', { group_claim: 'groups' })).statusCode).toBe(200);
  await a.inject({ method: 'GET', url: '/api/identity', headers: bearer(idp.mint({ sub: 'zoë', claims: { email: 'zoë@example.test', groups: ['a,b', '"quoted"', 'ünïcode ✓'] } })) });
  await a.get(ObservationRecorder).flush();

  // By SQL where no route writes: every type the schema uses, and the values that trip encoders (ids are ours, so inlined).
  await benchA.db.query(`
    INSERT INTO runs (id, platform, project, ticket, pipeline, state, created_at, started_at, finished_at, result, error,
                      owner, heartbeat_at, admitted_at, cpu_request, memory_request, event_seq, model_calls, input_tokens, output_tokens, cost_usd, target, instructions)
    VALUES ('${RUN}', 'platform-a', 'shop', 'T-1', 'code', 'succeeded', '2026-01-02 03:04:05.123456+00', '2026-01-02 03:04:06.000001+00', '2026-01-02 03:05:00.999999+00',
            '{"big": 123456789012345678901234567890.123456789, "nested": {"list": [1, null, "x"]}, "text": "line\\nbreak \\"quoted\\" \\\\ back ☃ 𝄞"}', NULL,
            'replica-1', '2026-01-02 03:05:00+00', '2026-01-02 03:04:05.5+00', 0.1, 9007199254740993, 3, 2, 1234567, 89, 1234.567891,
            '{"repo": "shop-web", "number": 7}', E'fix it\\nplease'),
           ('${OTHER_RUN}', 'platform-b', 'shop', NULL, 'security-scan', 'running', now(), now(), NULL, 'null', 'still going', NULL, NULL, NULL, NULL, NULL, 0, 0, 0, 0, 0, NULL, NULL);
    INSERT INTO tickets (platform, project, ticket, state, pipeline, run_id) VALUES ('platform-a', 'shop', 'T-1', 'done', 'code', '${RUN}'), ('platform-a', 'shop', 'T-2', 'pending', NULL, NULL);
    INSERT INTO run_events (run_id, seq, at, kind, sandbox, text) VALUES
      ('${RUN}', 1, '2026-01-02 03:04:07.000123+00', 'stdout', 'shop-web', 'héllo wörld 你好 🚀 ‮rtl‬ a\u2028b'),
      ('${RUN}', 2, '2026-01-02 03:04:08+00', 'state', NULL, '{"@":"trailer","rows":{}}'),
      ('${RUN}', 3, '2026-01-02 03:04:09+00', 'stderr', 'shop-web', E'tab\\tnewline\\nend');
    INSERT INTO run_sandboxes (run_id, repo, path_prefix, state) VALUES ('${RUN}', 'shop-web', '', 'destroyed');
    INSERT INTO run_steps (run_id, position, name, state, finished_at) VALUES ('${RUN}', 1, 'npm ci', 'succeeded', now()), ('${RUN}', 2, 'npm test', 'failed', NULL);
    INSERT INTO ticket_comments (run_id, kind, platform, project, ticket, state, comment_id, claimed_by, posted_at) VALUES ('${RUN}', 'failure', 'platform-a', 'shop', 'T-1', 'posted', 'c-1', NULL, now());
    INSERT INTO pull_requests (run_id, project, ticket, repo, url, number, state) VALUES ('${RUN}', 'shop', 'T-1', 'shop-web', 'https://github.com/acme/shop-web/pull/7', 7, 'open'),
      (NULL, 'shop', NULL, 'shop-web', 'https://github.com/acme/shop-web/pull/8', 8, 'merged');
    INSERT INTO run_artifacts (run_id, name, media_type, content, size_bytes) SELECT '${RUN}', 'all-bytes.bin', 'application/octet-stream', string_agg(set_byte('\\x00'::bytea, 0, i), ''::bytea ORDER BY i), 256 FROM generate_series(0, 255) i;
    INSERT INTO run_questions (run_id, platform, project, ticket, kind, question, answer, answered_by, answer_source, answered_at)
      VALUES ('${RUN}', 'platform-a', 'shop', 'T-1', 'question', 'Which colour?', 'Blue', 'dave@example.test', 'dashboard', now());
    INSERT INTO command_receipts (platform, repository, act_id) VALUES ('platform-a', 'acme/shop-web', 'comment-1');
    INSERT INTO poll_cursors (platform, project, cursor, last_full_sweep_at) VALUES ('platform-a', 'shop', '2026-01-02 00:00:00.000001+00', NULL);
    INSERT INTO trigger_log (received_at, platform, event, delivery_id, project, ticket, outcome, reason, status_code, source) VALUES
      (now(), 'platform-a', 'issues', 'd-1', 'shop', 'T-1', 'Claimed', NULL, 202, 'webhook'), (now(), 'platform-a', NULL, NULL, 'shop', 'T-2', 'filtered', 'label', 200, 'poll'),
      (now(), NULL, NULL, NULL, NULL, NULL, 'invalid', NULL, 400, 'webhook');
    DELETE FROM trigger_log WHERE outcome = 'invalid';
    INSERT INTO access_markers (name, detail) VALUES ('json-null', 'null'), ('sql-null', NULL), ('object', '{"groups": ["ops"], "roles": []}');
    INSERT INTO config_settings (key, value, updated_by) VALUES ('queue.max_parallel_runs', '4', 'root@example.test');
    INSERT INTO dialog_conversations (id, owner, project, title, input_tokens, cost_usd) VALUES ('${RUN}', 'ana', 'shop', 'Rounding', 1234, 0.25);
    INSERT INTO dialog_messages (conversation_id, seq, role, kind, text) VALUES ('${RUN}', 1, 'person', NULL, 'Plan rounding'), ('${RUN}', 2, 'model', 'proposal', 'One ticket.');
    INSERT INTO dialog_drafts (conversation_id, draft_index, message_seq, title, body, criteria, labels, filed_ticket, filed_url, filed_by, filed_at, started)
      VALUES ('${RUN}', 0, 2, 'Round totals', 'In cents.', '["totals in cents"]', '[]', '42', 'https://github.com/acme/shop-web/issues/42', 'ana', now(), true);`);
}

describe('permissions', () => {
  it('refuses an operator both routes (403 naming archive.export / archive.import)', async () => {
    const operator = idp.mint({ sub: 'op', claims: { roles: ['operator'] } });
    const get = await a.inject({ method: 'GET', url: '/api/archive', headers: bearer(operator) });
    expect(get.statusCode).toBe(403);
    expect(get.json()).toMatchObject({ missingPermissions: ['archive.export'] });
    const post = await upload(b, operator, gzip('{}'));
    expect(post.statusCode).toBe(403);
    expect(post.json()).toMatchObject({ missingPermissions: ['archive.import'] });
  });

  it('takes the archive as gzip bytes only (415 otherwise), and the webhook routes still refuse gzip as before', async () => {
    expect((await call(b, 'POST', '/api/archive', { some: 'json' })).statusCode).toBe(415);
    // Exactly Fastify's answer to a type no parser takes.
    const webhook = (type: string) => b.inject({ method: 'POST', url: '/webhook/platform-a', headers: { 'content-type': type }, payload: gzip('{}') });
    const [gzipped, unknown] = [await webhook('application/gzip'), await webhook('application/x-unknown')];
    expect(gzipped.statusCode).toBe(415);
    expect(gzipped.body).toBe(unknown.body);
  });
});

describe('the table list', () => {
  it('is every table of the catalog except the explicit exclusions, and a new table is archived by default', async () => {
    const all = (await benchA.db.query<{ name: string }>(`SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1`)).rows.map((r) => r.name);
    const archived = await archivedTables(benchA.db);
    expect([...archived, ...Object.keys(NOT_ARCHIVED)].sort()).toEqual(all);
    expect(archived).not.toContain('schema_migrations');
    // Each table after the ones it references, the derived counters after their source.
    expect(archived.indexOf('runs')).toBeLessThan(archived.indexOf('run_events'));
    expect(archived.indexOf('runs')).toBeLessThan(archived.indexOf('tickets'));
    expect(archived.indexOf('runs')).toBeLessThan(archived.indexOf('run_counts'));

    const scratch = await createTestDatabase('archive_future');
    const db = new pg.Pool({ connectionString: scratch.url, max: 1 });
    try {
      await db.query('CREATE TABLE future_things (id bigserial PRIMARY KEY, run_id uuid REFERENCES runs (id))');
      const withFuture = await archivedTables(db);
      expect(withFuture).toContain('future_things');
      expect(withFuture.indexOf('runs')).toBeLessThan(withFuture.indexOf('future_things'));
    } finally {
      await db.end();
      await scratch.drop();
    }
  });
});

describe('the row encoding, on what the schema does not hold yet', () => {
  it('keeps json\'s spelling, a JSON null apart from SQL NULL, identity and generated columns, and a self-reference in key order', async () => {
    const scratch = await createTestDatabase('archive_rows', { migrated: false });
    const db = new pg.Pool({ connectionString: scratch.url, max: 1 });
    try {
      for (const name of ['source_rows', 'target_rows']) {
        await db.query(`CREATE TABLE ${name} (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, parent bigint REFERENCES ${name} (id),
          doc json, data jsonb, tags text[], amount numeric, at timestamptz, raw bytea, twice bigint GENERATED ALWAYS AS (id * 2) STORED)`);
      }
      await db.query(`INSERT INTO source_rows (parent, doc, data, tags, amount, at, raw) VALUES
        (NULL, '{"b": 1,   "a" : [true]}', 'null', '{"x,y",NULL}', 0.000000000000000000000000000001, '2026-01-01 00:00:00.000001+00', '\\x00ff'),
        (1, 'null', NULL, '{}', 'NaN', 'infinity', ''),
        (2, NULL, '"text"', NULL, NULL, NULL, NULL)`);
      // Row 1 rewritten: stored after the rows that reference it, so only key order inserts them one by one.
      await db.query(`UPDATE source_rows SET amount = -1 WHERE id = 1`);
      const query = async (sql: string, p?: unknown[]) => (await db.query(sql, p)).rows;
      const source = (await readCatalog(query)).find((t) => t.name === 'source_rows')!;
      const lines = (await query(selectRowsSql(source))).map((r) => r.line as string);
      expect(lines.map((l) => JSON.parse(l).id)).toEqual([1, 2, 3]);
      for (const line of lines) await db.query(insertRowsSql({ ...source, name: 'target_rows' }, false), [`[${line}]`]);
      const rows = async (table: string) => (await query(`SELECT t::text AS row FROM ${table} AS t ORDER BY id`)).map((r) => r.row);
      expect(await rows('target_rows')).toEqual(await rows('source_rows'));
      expect((await query(`SELECT doc::text AS doc, data IS NULL AS sql_null FROM target_rows ORDER BY id`))).toEqual([
        { doc: '{"b": 1,   "a" : [true]}', sql_null: false }, { doc: 'null', sql_null: true }, { doc: null, sql_null: false },
      ]);
    } finally {
      await db.end();
      await scratch.drop();
    }
  });
});

describe('a round trip', () => {
  let tables: string[];
  let before: Record<string, string[]>;

  beforeAll(async () => {
    await fillInstallationA();
    tables = await archivedTables(benchA.db);
    before = await snapshot(benchB.db, tables);
  }, 30_000);

  it('fills every archived table of A (a table added later fails here until this test fills it)', async () => {
    const empty = [];
    for (const table of tables) if ((await dump(benchA.db, table)).length === 0) empty.push(table);
    expect(empty).toEqual([]);
  });

  it('downloads the archive: gzip\'d NDJSON with a header, every table, and a trailer counting its rows', async () => {
    const res = await a.inject({ method: 'GET', url: '/api/archive', headers: bearer(root) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/gzip');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="pipeline-service-archive-.+\.ndjson\.gz"$/);
    archive = res.rawPayload;
    const lines = linesOf(archive);
    const header = JSON.parse(lines[0]!);
    const schema = (await benchA.db.query('SELECT name FROM schema_migrations ORDER BY timestamp DESC LIMIT 1')).rows[0].name;
    expect(header).toMatchObject({ '@': 'header', format: 'pipeline-service-archive', version: 1, schema, created_at: expect.any(String) });
    expect(header.tables.map((t: { name: string }) => t.name)).toEqual(tables);
    const trailer = JSON.parse(lines.at(-1)!);
    expect(trailer['@']).toBe('trailer');
    for (const table of tables) expect(trailer.rows[table], table).toBe((await dump(benchA.db, table)).length);
    // The secret travels sealed: its value is nowhere in the archive.
    expect(gunzipSync(archive).includes(Buffer.from(SECRET))).toBe(false);
  });

  it('is one snapshot: a row written while the archive streams is not in it', async () => {
    const { stream } = await a.get(ArchiveExporter).open();
    await benchA.db.query(`INSERT INTO command_receipts (platform, repository, act_id) VALUES ('platform-a', 'acme/shop-web', 'written-during-export')`);
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      const text = gunzipSync(Buffer.concat(chunks)).toString('utf8');
      expect(text).toContain('comment-1');
      expect(text).not.toContain('written-during-export');
    } finally {
      await benchA.db.query(`DELETE FROM command_receipts WHERE act_id = 'written-during-export'`);
    }
  });

  it('refuses an archive declared larger than 4 GiB before reading it (413)', async () => {
    const res = await b.inject({ method: 'POST', url: '/api/archive', headers: { ...bearer(root), 'content-type': 'application/gzip', 'content-length': String(5 * 1024 ** 3) }, payload: gzip('{}') });
    expect(res.statusCode).toBe(413);
  });

  it('refuses a truncated archive (422) and leaves B as it was', async () => {
    const cut = await upload(b, root, archive.subarray(0, Math.floor(archive.length * 0.6)));
    expect(cut.statusCode).toBe(422);
    expect(cut.json()).toMatchObject({ code: 'truncated', error: expect.stringContaining('cut short') });
    // Cut at a line boundary and gzip'd again: only the missing trailer tells.
    const lines = linesOf(archive);
    const noTrailer = await upload(b, root, relined(lines.slice(0, -1)));
    expect(noTrailer.statusCode).toBe(422);
    expect(noTrailer.json()).toMatchObject({ code: 'truncated' });
    expect(await snapshot(benchB.db, tables)).toEqual(before);
  });

  it('refuses a row lost on the way (count mismatch), a damaged row and a damaged gzip stream (422), B unchanged', async () => {
    const lines = linesOf(archive);
    const eventRow = lines.findIndex((l) => l.includes('héllo wörld'));
    const lost = await upload(b, root, relined(lines.filter((_, i) => i !== eventRow)));
    expect(lost.statusCode).toBe(422);
    expect(lost.json()).toMatchObject({ code: 'count_mismatch', mismatched: [{ table: 'run_events', expected: 3, read: 2 }] });

    const damaged = await upload(b, root, relined(lines.map((l, i) => (i === eventRow ? l.slice(0, -5) : l))));
    expect(damaged.statusCode).toBe(422);
    expect(damaged.json()).toMatchObject({ code: 'rows_refused', table: 'run_events' });

    const flipped = Buffer.from(archive);
    flipped[Math.floor(flipped.length / 2)]! ^= 0xff;
    const corrupt = await upload(b, root, flipped);
    expect(corrupt.statusCode).toBe(422);
    expect(corrupt.json().code).toMatch(/^(corrupt|rows_refused|count_mismatch)$/);

    expect((await upload(b, root, 'not gzip at all')).json()).toMatchObject({ code: 'corrupt' });
    expect(await snapshot(benchB.db, tables)).toEqual(before);
  });

  it('refuses another format version, another schema, or something else entirely (422), B unchanged', async () => {
    const lines = linesOf(archive);
    const header = JSON.parse(lines[0]!);
    const version = await upload(b, root, relined([JSON.stringify({ ...header, version: 2 }), ...lines.slice(1)]));
    expect(version.statusCode).toBe(422);
    expect(version.json()).toMatchObject({ code: 'unsupported_version', version: 2, error: expect.stringContaining('version 1') });

    const schema = await upload(b, root, relined([JSON.stringify({ ...header, schema: 'future1700000000099' }), ...lines.slice(1)]));
    expect(schema.statusCode).toBe(422);
    expect(schema.json()).toMatchObject({ code: 'schema_mismatch', archiveSchema: 'future1700000000099', schema: header.schema });

    const other = await upload(b, root, gzip('{"hello": "world"}\n'));
    expect(other.statusCode).toBe(422);
    expect(other.json()).toMatchObject({ code: 'unsupported_format' });
    expect(await snapshot(benchB.db, tables)).toEqual(before);
  });

  it('restores into the empty installation B: every table row for row, sequences continuing, configuration and access re-read', async () => {
    const restored = await upload(b, root, archive);
    expect(restored.statusCode).toBe(200);
    const body = restored.json();
    expect(body).toMatchObject({ schema: JSON.parse(linesOf(archive)[0]!).schema, rows: expect.objectContaining({ runs: 2, run_events: 3 }) });

    for (const table of tables) {
      const [rowsA, rowsB] = [await dump(benchA.db, table), await dump(benchB.db, table)];
      if (REVISION_TABLES.includes(table)) continue;
      if (MERGED_TABLES.includes(table)) {
        // B's own record of the restoring caller wins; every other caller A saw is there as it was.
        expect(rowsB.filter((r) => !r.startsWith('(root,')), table).toEqual(rowsA.filter((r) => !r.startsWith('(root,')));
        continue;
      }
      if (table === 'config_changes') {
        expect(rowsB.filter((r) => !r.includes(',archive.restore,')), table).toEqual(rowsA);
        continue;
      }
      expect(rowsB, table).toEqual(rowsA);
    }
    // The values that trip encoders, checked as themselves too.
    const markers = await benchB.db.query(`SELECT name, detail IS NULL AS sql_null, detail = 'null'::jsonb AS json_null FROM access_markers ORDER BY name`);
    expect(markers.rows).toEqual([
      { name: 'json-null', sql_null: false, json_null: true }, { name: 'object', sql_null: false, json_null: false }, { name: 'sql-null', sql_null: true, json_null: null },
    ]);
    const [run] = (await benchB.db.query('SELECT memory_request::text, cost_usd::text, result #>> \'{big}\' AS big, created_at FROM runs WHERE id = $1', [RUN])).rows;
    expect(run).toMatchObject({ memory_request: '9007199254740993', cost_usd: '1234.567891', big: '123456789012345678901234567890.123456789' });
    const [artifact] = (await benchB.db.query<{ content: Buffer }>('SELECT content FROM run_artifacts')).rows;
    expect([...artifact!.content]).toEqual([...Array(256).keys()]);

    // The restore is recorded, after every archived change, and both revisions moved past A's.
    const [change] = (await call(b, 'GET', '/api/config/changes?limit=1')).json().changes;
    expect(change).toMatchObject({ id: body.change, kind: 'archive.restore', target: 'archive', attribution: 'root@example.test' });
    const revert = await call(b, 'POST', `/api/config/changes/${body.change}/revert`);
    expect(revert.statusCode).toBe(409);
    expect(revert.json()).toMatchObject({ code: 'not_revertible' });
    for (const table of REVISION_TABLES) {
      const revision = async (db: pg.Pool) => Number((await db.query(`SELECT revision FROM ${ident(table)}`)).rows[0].revision);
      expect(await revision(benchB.db), table).toBeGreaterThan(await revision(benchA.db));
    }

    // Sequences continue past what A had given out (A's deleted trigger_log row included), never reusing an id.
    const maxA = (await benchA.db.query('SELECT (SELECT last_value FROM trigger_log_id_seq) AS log, (SELECT max(queue_seq) FROM runs) AS queue')).rows[0];
    const [log] = (await benchB.db.query(`INSERT INTO trigger_log (received_at, outcome, status_code) VALUES (now(), 'Claimed', 202) RETURNING id`)).rows;
    expect(Number(log.id)).toBe(Number(maxA.log) + 1);
    const [fresh] = (await benchB.db.query(`INSERT INTO runs (id, platform, project, ticket, pipeline, state) VALUES ($1, 'platform-a', 'shop', 'T-3', 'code', 'queued') RETURNING queue_seq`, [randomUUID()])).rows;
    expect(Number(fresh.queue_seq)).toBeGreaterThan(Number(maxA.queue));
    const [event] = (await benchB.db.query(`UPDATE runs SET event_seq = event_seq + 1 WHERE id = $1 RETURNING event_seq`, [RUN])).rows;
    await benchB.db.query(`INSERT INTO run_events (run_id, seq, kind, text) VALUES ($1, $2, 'stdout', 'after the restore')`, [RUN, event.event_seq]);
    expect(event.event_seq).toBe(4);

    // Every replica re-reads: the secret resolves under the shared key, and the archived grants apply.
    await eventually(async () => (authSecret(b) === SECRET ? true : undefined), 5_000, 'B resolves the restored secret');
    const dave = idp.mint({ sub: 'dave', claims: { email: 'dave@example.test' } });
    expect((await b.inject({ method: 'GET', url: '/api/identity', headers: bearer(dave) })).json().roles).toEqual(['operator']);
  });

  it('refuses a restore into an installation that is not empty (409 naming its tables)', async () => {
    const again = await upload(b, root, archive);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'not_empty', tables: expect.arrayContaining(['runs', 'secrets', 'config_changes']) });
    expect(again.json().tables).not.toContain('access_observations');
  });
});
