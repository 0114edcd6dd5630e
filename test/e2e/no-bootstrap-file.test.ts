import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import type { FindingsBody, HealthBody } from '../support/response-bodies.js';
import { expectFindingsShape, expectHealthShape } from '../support/response-shapes.js';
import {
  type ServerProcess, embeddedDatabasePids, firstAnswers, getJson, isAlive, startServer, tempDir,
} from '../support/server-process.js';

/**
 * The built server with nothing: no bootstrap file, no DATABASE_URL (the embedded database in a
 * temporary SERVICE_DATA_DIR), no KVSTORE_URL.
 */
const data = tempDir('e2e-no-config');
let server: ServerProcess;
let first: Awaited<ReturnType<typeof firstAnswers>>;

beforeAll(async () => {
  server = await startServer({ SERVICE_CONFIG: join(data.dir, 'absent', 'service.yml'), SERVICE_DATA_DIR: data.dir });
  first = await firstAnswers(server);
});

afterAll(async () => {
  await server?.stop();
  for (const pid of await embeddedDatabasePids(data.dir)) process.kill(pid, 'SIGKILL');
  data.remove();
});

describe('no bootstrap file, no database, no store', () => {
  it('answers /health and /api/config/findings (the 2 s target: npm run bench:boot)', () => {
    expectHealthShape(first.health.body);
    expectFindingsShape(first.findings.body);
  });

  it('reports the preflight pending first, then completed', async () => {
    expect(first.health.body.preflight).toEqual({ status: 'pending', completed_at_utc: null, passed: 0, failed: 0, skipped: 0, failures: [] });
    const done = await eventually(async () => {
      const { body } = await getJson<HealthBody>(`${server.baseUrl}/health`);
      return body.preflight.status === 'pending' ? undefined : body;
    }, 60_000, 'the startup checks to complete');
    // The embedded database is fresh and nobody ran `migrate`: the database check fails.
    expect(done.preflight.status).toBe('fail');
    expect(done.preflight.completed_at_utc).not.toBeNull();
    expect(new Date(done.preflight.completed_at_utc ?? '').getTime()).toBeGreaterThanOrEqual(server.startedAt);
    expect(done.preflight.failures.map((f) => f.name)).toEqual(['database']);
    expect(done.preflight.failures[0]?.fix_hint).toContain('npm run migrate');
    // Every queue subsystem is disabled, which does not count against the status.
    expect(done.subsystems.every((s) => s.state === 'disabled')).toBe(true);
    expect(done.status).toBe('ok');
  });

  it('lists the findings the spec describes: config-file, store disabled, migrations pending', async () => {
    const { body } = await eventually(async () => {
      const res = await getJson<FindingsBody>(`${server.baseUrl}/api/config/findings`);
      return res.body.findings.some((f) => f.subsystem === 'database') ? res : undefined;
    }, 60_000, 'the database finding');
    expect(body.findings).toHaveLength(3);
    expect(body.findings).toContainEqual({
      subsystem: 'config-file', severity: 'advisory', reason: expect.stringContaining('not found'), project: null, trigger: null, field: 'SERVICE_CONFIG',
    });
    expect(body.findings).toContainEqual({
      subsystem: 'redis', severity: 'advisory', reason: expect.stringContaining('KVSTORE_URL is not set'), project: null, trigger: null, field: 'KVSTORE_URL',
    });
    const db = body.findings.find((f) => f.subsystem === 'database');
    expect(db).toMatchObject({ severity: 'blocking', project: null, trigger: null });
    expect(db?.reason).toContain('embedded PostgreSQL');
    expect(db?.reason).toContain('npm run migrate');
    expect(body).toMatchObject({ degraded: true, blocking: 1, advisory: 2 });
    // Before the checks finished, the configuration findings were already there.
    expect(first.findings.body.findings.map((f) => f.subsystem)).toContain('config-file');
  });

  it('logs one startup line with the finding count and a pointer to the findings route', async () => {
    await eventually(() => (server.output().includes('startup checks done') ? true : undefined), 30_000, 'the startup log line');
    const lines = server.output().split('\n').filter((l) => l.includes('startup checks done'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('1 blocking and 2 advisory');
    expect(lines[0]).toContain('/api/config/findings');
  });

  it('the embedded database process goes away when the server is killed with SIGKILL', async () => {
    const socket = join(data.dir, '.s.PGSQL.5432');
    const pids = await eventually(async () => {
      const found = await embeddedDatabasePids(data.dir);
      return found.length > 0 ? found : undefined;
    }, 30_000, 'the embedded database process');
    expect(pids).toHaveLength(1);
    const pid = pids[0] as number;
    expect(isAlive(pid)).toBe(true);
    expect(existsSync(socket)).toBe(true);

    server.child.kill('SIGKILL');
    await server.exited;
    await eventually(() => (isAlive(pid) ? undefined : true), 10_000, `embedded database process ${pid} to exit`);
    expect(await embeddedDatabasePids(data.dir)).toEqual([]);
  });
});
