import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../src/pipelines/pipeline.js';
import { executePipeline } from '../../src/pipelines/pipeline-execution.js';
import { StepRunner } from '../../src/pipelines/step-runner.js';
import { MAX_ARTIFACT_BYTES, RunArtifactRefusedError, RunArtifactsService } from '../../src/runs/run-artifacts.service.js';
import { RunRetentionService } from '../../src/runs/run-retention.service.js';
import { InProcessBackend } from '../../src/sandbox/in-process.backend.js';
import { OidcAuthority } from '../stand-ins/oidc-authority.js';
import { type AuthBench, bearer, bootApp, createAuthBench } from '../auth/support/auth-harness.js';

/**
 * Run artifacts on the real AppModule with enforcement on (a real OIDC authority) and PostgreSQL:
 * saved through RunArtifactsService (as a run's steps do through its sink), listed and downloaded
 * over HTTP with runs.read, refused without it, and gone with their run.
 */
let idp: OidcAuthority;
let bench: AuthBench;
let app: NestFastifyApplication;
let artifacts: RunArtifactsService;
let reader: string;

const SARIF = JSON.stringify({ version: '2.1.0', runs: [{ tool: { driver: { name: 'security-scan' } }, results: [] }] });
const REPORT = '# Security scan\n\nNo findings at or above **high**. Ünïcødé — 🔒\n';

async function seedRun(options: { finishedDaysAgo?: number } = {}): Promise<string> {
  const id = randomUUID();
  const finished = options.finishedDaysAgo === undefined ? new Date() : new Date(Date.now() - options.finishedDaysAgo * 86_400_000);
  await bench.db.query(
    `INSERT INTO runs (id, platform, project, ticket, pipeline, state, created_at, started_at, finished_at)
     VALUES ($1, 'platform-a', 'solo', NULL, 'security-scan', 'succeeded', $2, $2, $2)`, [id, finished]);
  return id;
}

/** GET with a token (the reader's unless another is given; null: none at all). */
const get = (url: string, token: string | null = reader) =>
  app.inject({ method: 'GET', url, headers: token === null ? {} : bearer(token) });
const stored = async (runId: string) =>
  (await bench.db.query<{ name: string }>('SELECT name FROM run_artifacts WHERE run_id = $1 ORDER BY name', [runId])).rows.map((r) => r.name);

beforeAll(async () => {
  idp = await OidcAuthority.start();
  bench = await createAuthBench('run_artifacts');
  app = await bootApp(bench.environment({
    SERVICE_AUTH_AUTHORITY: idp.authority, SERVICE_AUTH_AUDIENCE: idp.defaultAudience, SERVICE_AUTH_ENFORCE: 'true',
  }));
  artifacts = app.get(RunArtifactsService);
  reader = idp.mint({ claims: { roles: ['reader'] } });
});

afterAll(async () => {
  await app?.close();
  await bench?.cleanup();
  await idp?.stop();
});

describe('saving, listing and reading', () => {
  it('lists what a run saved by name and serves each as saved, with its media type, as an attachment', async () => {
    const runId = await seedRun();
    const sink = artifacts.sinkFor(runId);
    await sink.save('report.sarif', 'application/sarif+json', SARIF);
    await sink.save('report.md', 'text/markdown; charset=utf-8', REPORT);

    const list = await get(`/api/runs/${runId}/artifacts`);
    expect(list.statusCode).toBe(200);
    const body = list.json<{ items: { name: string; mediaType: string; sizeBytes: number; createdAt: string }[] }>();
    expect(body.items.map(({ createdAt, ...rest }) => rest)).toEqual([
      { name: 'report.md', mediaType: 'text/markdown; charset=utf-8', sizeBytes: Buffer.byteLength(REPORT, 'utf8') },
      { name: 'report.sarif', mediaType: 'application/sarif+json', sizeBytes: Buffer.byteLength(SARIF, 'utf8') },
    ]);
    expect(Buffer.byteLength(REPORT, 'utf8')).toBeGreaterThan(REPORT.length); // sizes count bytes, not characters
    for (const item of body.items) expect(Math.abs(Date.parse(item.createdAt) - Date.now())).toBeLessThan(60_000);
    expect(Object.keys(body)).toEqual(['items']);

    const sarif = await get(`/api/runs/${runId}/artifacts/report.sarif`);
    expect(sarif.statusCode).toBe(200);
    expect(sarif.headers['content-type']).toBe('application/sarif+json');
    expect(sarif.headers['content-disposition']).toBe('attachment; filename="report.sarif"');
    expect(sarif.headers['x-content-type-options']).toBe('nosniff');
    expect(sarif.headers['content-length']).toBe(String(Buffer.byteLength(SARIF, 'utf8')));
    expect(sarif.body).toBe(SARIF);

    const report = await get(`/api/runs/${runId}/artifacts/report.md`);
    expect(report.statusCode).toBe(200);
    expect(report.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(report.headers['content-disposition']).toBe('attachment; filename="report.md"');
    expect(report.rawPayload.equals(Buffer.from(REPORT, 'utf8'))).toBe(true);
  });

  it('saving a name again replaces its content and media type; other names stay', async () => {
    const runId = await seedRun();
    await artifacts.save(runId, 'report.md', 'text/markdown; charset=utf-8', 'first');
    await artifacts.save(runId, 'other.txt', 'text/plain', 'stays');
    await artifacts.save(runId, 'report.md', 'text/plain; charset=utf-8', 'second, longer');
    expect(await stored(runId)).toEqual(['other.txt', 'report.md']);
    const list = (await get(`/api/runs/${runId}/artifacts`)).json<{ items: { name: string; mediaType: string; sizeBytes: number }[] }>();
    expect(list.items.find((i) => i.name === 'report.md')).toMatchObject({ mediaType: 'text/plain; charset=utf-8', sizeBytes: 14 });
    const res = await get(`/api/runs/${runId}/artifacts/report.md`);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.body).toBe('second, longer');
    expect((await get(`/api/runs/${runId}/artifacts/other.txt`)).body).toBe('stays');
  });

  it('keeps any text exactly, a NUL character and an empty content included', async () => {
    const runId = await seedRun();
    await artifacts.save(runId, 'odd.txt', 'text/plain', 'a\u0000b\r\n\tc');
    await artifacts.save(runId, 'empty.txt', 'text/plain', '');
    expect((await get(`/api/runs/${runId}/artifacts/odd.txt`)).body).toBe('a\u0000b\r\n\tc');
    const empty = await get(`/api/runs/${runId}/artifacts/empty.txt`);
    expect(empty.statusCode).toBe(200);
    expect(empty.body).toBe('');
  });

  it('a run without artifacts lists none', async () => {
    const runId = await seedRun();
    expect((await get(`/api/runs/${runId}/artifacts`)).json()).toEqual({ items: [] });
  });

  it('a step saves through the sink executePipeline hands it (as the run executor passes it)', async () => {
    const runId = await seedRun();
    const pipeline: Pipeline = {
      name: 'artifact-writer', timeoutMs: 30_000,
      steps: [{
        name: 'write report',
        async run(context) {
          if (!context.artifacts) return { ok: false, error: 'no artifact sink in the step context' };
          await context.artifacts.save('report.md', 'text/markdown; charset=utf-8', `# ${context.runId}`);
          return { ok: true };
        },
      }],
    };
    const result = await executePipeline({
      run: { runId, platform: 'platform-a', project: 'solo', ticket: null, pipeline: pipeline.name },
      project: null, pipeline, backend: new InProcessBackend(), runner: new StepRunner(), events: { emit: () => undefined },
      artifacts: artifacts.sinkFor(runId),
    });
    expect(result.ok).toBe(true);
    expect((await get(`/api/runs/${runId}/artifacts/report.md`)).body).toBe(`# ${runId}`);
  });
});

describe('refusals when saving', () => {
  it.each([
    ['', 'empty'], ['../etc/passwd', 'a path'], ['a/b', 'a slash'], ['a..b', 'two dots'], ['..', 'only dots'], ['x'.repeat(101), '101 characters'],
    ['report md', 'a space'], ['rapport-été.md', 'non-ASCII'], ['a\nb', 'a line break'],
  ])('refuses the name %j (%s) with a clear error and stores nothing', async (name) => {
    const runId = await seedRun();
    const saving = artifacts.save(runId, name, 'text/plain', 'x');
    await expect(saving).rejects.toBeInstanceOf(RunArtifactRefusedError);
    await expect(saving).rejects.toThrow(/artifact name .* refused: 1–100 characters of A–Z, a–z, 0–9, '\.', '_' and '-', without '\.\.'/);
    expect(await stored(runId)).toEqual([]);
  });

  it('accepts names at the edge: 100 characters, dots, dashes and underscores', async () => {
    const runId = await seedRun();
    for (const name of ['x'.repeat(100), '.hidden', 'a.b.c', 'A-Z_0-9.sarif']) await artifacts.save(runId, name, 'text/plain', name);
    expect((await stored(runId)).sort()).toEqual(['.hidden', 'A-Z_0-9.sarif', 'a.b.c', 'x'.repeat(100)].sort());
  });

  it('refuses content over 10 MiB (counted in UTF-8 bytes) and keeps exactly 10 MiB', async () => {
    const runId = await seedRun();
    await artifacts.save(runId, 'limit.txt', 'text/plain', 'a'.repeat(MAX_ARTIFACT_BYTES));
    await expect(artifacts.save(runId, 'over.txt', 'text/plain', 'a'.repeat(MAX_ARTIFACT_BYTES + 1)))
      .rejects.toThrow(`artifact over.txt is ${MAX_ARTIFACT_BYTES + 1} bytes, more than the ${MAX_ARTIFACT_BYTES} bytes (10 MiB) an artifact may have; it was not saved`);
    // Fewer characters than the limit, more bytes: 'é' is two bytes.
    await expect(artifacts.save(runId, 'wide.txt', 'text/plain', 'é'.repeat(MAX_ARTIFACT_BYTES / 2 + 1))).rejects.toThrow(/more than the 10485760 bytes/);
    // A refused replacement leaves the saved content in place.
    await expect(artifacts.save(runId, 'limit.txt', 'text/plain', 'b'.repeat(MAX_ARTIFACT_BYTES + 1))).rejects.toBeInstanceOf(RunArtifactRefusedError);
    expect(await stored(runId)).toEqual(['limit.txt']);
    const list = (await get(`/api/runs/${runId}/artifacts`)).json<{ items: { sizeBytes: number }[] }>();
    expect(list.items).toEqual([expect.objectContaining({ sizeBytes: MAX_ARTIFACT_BYTES })]);
    const res = await get(`/api/runs/${runId}/artifacts/limit.txt`);
    expect(res.rawPayload.length).toBe(MAX_ARTIFACT_BYTES);
    expect(res.rawPayload.every((byte) => byte === 0x61)).toBe(true);
  });

  it.each(['', 'text', 'text/plain\r\nSet-Cookie: a=b', 'text/plain; charset=utf-8\nX: y', 'text/ plain', `text/${'x'.repeat(200)}`])(
    'refuses the media type %j (it becomes a response header)', async (mediaType) => {
      const runId = await seedRun();
      await expect(artifacts.save(runId, 'a.txt', mediaType, 'x')).rejects.toThrow(/media type .* refused: it must be type\/subtype/);
      expect(await stored(runId)).toEqual([]);
    });

  it('refuses an artifact of a run that does not exist, naming the run', async () => {
    const unknown = randomUUID();
    await expect(artifacts.save(unknown, 'report.md', 'text/markdown', 'x')).rejects.toThrow(`artifact report.md not saved: no run ${unknown}`);
    await expect(artifacts.sinkFor('not-a-uuid').save('report.md', 'text/markdown', 'x')).rejects.toThrow('artifact report.md not saved: no run not-a-uuid');
  });
});

describe('answers of the routes', () => {
  it('404 {error} for an unknown run, on both routes', async () => {
    const unknown = randomUUID();
    for (const url of [`/api/runs/${unknown}/artifacts`, `/api/runs/${unknown}/artifacts/report.md`]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.json(), url).toEqual({ error: `no run ${unknown}` });
    }
  });

  it('404 {error} for a name the run does not have', async () => {
    const runId = await seedRun();
    await artifacts.save(runId, 'report.md', 'text/markdown', 'x');
    const res = await get(`/api/runs/${runId}/artifacts/report.sarif`);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: `run ${runId} has no artifact report.sarif` });
    expect(res.headers['content-disposition']).toBeUndefined();
  });

  it('400 {error} naming the parameter for an id that is not a UUID or a name that is not an artifact name', async () => {
    const runId = await seedRun();
    const badId = await get('/api/runs/12345/artifacts');
    expect(badId.statusCode).toBe(400);
    expect(badId.json<{ error: string }>().error).toContain('id must be a run id');
    for (const name of ['a..b', 'a%20b', '.._x', 'r%C3%A9.md']) {
      const res = await get(`/api/runs/${runId}/artifacts/${name}`);
      expect(res.statusCode, name).toBe(400);
      expect(res.json<{ error: string }>().error, name).toContain('name must be an artifact name');
    }
  });

  it('401 without a token and 403 naming runs.read for a caller without it; the content is never sent', async () => {
    const runId = await seedRun();
    await artifacts.save(runId, 'report.sarif', 'application/sarif+json', SARIF);
    const nobody = idp.mint({ sub: 'no-roles' });
    for (const url of [`/api/runs/${runId}/artifacts`, `/api/runs/${runId}/artifacts/report.sarif`]) {
      const anonymous = await get(url, null);
      expect(anonymous.statusCode, url).toBe(401);
      const refused = await get(url, nobody);
      expect(refused.statusCode, url).toBe(403);
      expect(refused.json(), url).toEqual({ error: 'missing permission: runs.read', missingPermissions: ['runs.read'] });
      expect(refused.body, url).not.toContain('security-scan');
    }
  });
});

describe('artifacts go with their run', () => {
  it('deleting the run deletes its artifacts (cascade); another run keeps its own', async () => {
    const gone = await seedRun();
    const kept = await seedRun();
    await artifacts.save(gone, 'report.md', 'text/markdown', 'x');
    await artifacts.save(kept, 'report.md', 'text/markdown', 'y');
    await bench.db.query('DELETE FROM runs WHERE id = $1', [gone]);
    expect(await stored(gone)).toEqual([]);
    expect(await stored(kept)).toEqual(['report.md']);
    expect((await get(`/api/runs/${gone}/artifacts`)).statusCode).toBe(404);
  });

  it('run retention removes old finished runs with their artifacts', async () => {
    const old = await seedRun({ finishedDaysAgo: 400 });
    const recent = await seedRun({ finishedDaysAgo: 1 });
    await artifacts.save(old, 'report.sarif', 'application/sarif+json', SARIF);
    await artifacts.save(recent, 'report.sarif', 'application/sarif+json', SARIF);
    const pass = await app.get(RunRetentionService).pass();
    expect(pass.removed).toBeGreaterThanOrEqual(1);
    expect(await stored(old)).toEqual([]);
    expect(await stored(recent)).toEqual(['report.sarif']);
  });
});
