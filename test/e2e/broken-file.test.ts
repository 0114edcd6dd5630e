import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { eventually } from '../support/eventually.js';
import { type TestDatabase, createTestDatabase } from '../support/test-database.js';
import type { FindingsBody, HealthBody } from '../support/response-bodies.js';
import { expectFindingsShape, expectHealthShape } from '../support/response-shapes.js';
import { type ServerProcess, firstAnswers, getJson, startServer, tempDir } from '../support/server-process.js';

/** The built server with a broken bootstrap file: it starts anyway and says what is wrong. */
const dir = tempDir('e2e-broken-file');
let database: TestDatabase;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  database = await createTestDatabase('e2e_broken_file');
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await database?.drop();
  dir.remove();
});

/** Starts the built server on `text` as its bootstrap file; /health and the findings must answer (how fast: npm run bench:boot). */
async function serveFile(name: string, text: string): Promise<ServerProcess> {
  const path = join(dir.dir, name);
  writeFileSync(path, text);
  const server = await startServer({ SERVICE_CONFIG: path, SERVICE_DATA_DIR: dir.dir, DATABASE_URL: database.url });
  servers.push(server);
  const first = await firstAnswers(server);
  expectHealthShape(first.health.body);
  expectFindingsShape(first.findings.body);
  // The configuration's findings are there from the first answer, before the probes finish.
  expect(first.findings.body.findings.some((f) => f.subsystem === 'configuration')).toBe(true);
  return server;
}

async function settledFindings(server: ServerProcess): Promise<FindingsBody> {
  await eventually(async () => {
    const { body } = await getJson<HealthBody>(`${server.baseUrl}/health`, 1000);
    return body.preflight.status === 'pending' ? undefined : true;
  }, 30_000, 'the startup checks');
  const { body } = await getJson<FindingsBody>(`${server.baseUrl}/api/config/findings`);
  expectFindingsShape(body);
  return body;
}

describe('a broken bootstrap file', () => {
  it('invalid YAML → a blocking configuration finding naming SERVICE_CONFIG; the server serves on defaults', async () => {
    const server = await serveFile('invalid.yml', 'queue:\n  key_prefix: "unterminated\nprojects: [\n');
    const findings = await settledFindings(server);
    const configuration = findings.findings.filter((f) => f.subsystem === 'configuration');
    expect(configuration).toHaveLength(1);
    expect(configuration[0]).toMatchObject({ severity: 'blocking', field: 'SERVICE_CONFIG', project: null, trigger: null });
    expect(configuration[0]?.reason).toContain('invalid.yml');
    expect(configuration[0]?.reason).toContain('YAML');
    expect(findings.degraded).toBe(true);
    const health = await getJson<HealthBody>(`${server.baseUrl}/health`);
    expect(health.status).toBe(200);
    expect(health.body.preflight.failures.map((f) => f.name)).toContain('configuration');
    expect(server.child.exitCode).toBeNull();
  });

  it('a bad project → a finding naming the project; the good project still loads', async () => {
    const server = await serveFile('bad-project.yml', stringify({
      projects: {
        good: { tracker: 'platform-a', repos: [{ name: 'good-web', platform: 'platform-a', url: 'https://github.com/acme/good-web', auth_secret: 'ghp_e2eGoodWebToken01' }] },
        ghost: { tracker: 'platform-q', repos: [{ name: 'ghost', platform: 'platform-a', url: 'https://github.com/acme/ghost' }] },
        halfway: {
          tracker: 'platform-d',
          platform_d_trigger: { site_url: 'https://acme.atlassian.net', credentials: '${E2E_NOT_SET_JIRA}', default_pipeline: 'nope' },
        },
      },
    }));
    const findings = await settledFindings(server);
    const configuration = findings.findings.filter((f) => f.subsystem === 'configuration');
    expect(configuration).toContainEqual({
      subsystem: 'configuration', severity: 'blocking', reason: expect.stringContaining('ghost'), project: 'ghost', trigger: null, field: 'projects.ghost.tracker',
    });
    expect(configuration).toContainEqual({
      subsystem: 'configuration', severity: 'blocking', reason: expect.stringContaining('E2E_NOT_SET_JIRA'),
      project: 'halfway', trigger: 'platform_d_trigger', field: 'projects.halfway.platform_d_trigger.credentials',
    });
    expect(configuration).toContainEqual({
      subsystem: 'configuration', severity: 'blocking', reason: expect.stringContaining('nope'),
      project: 'halfway', trigger: 'platform_d_trigger', field: 'projects.halfway.platform_d_trigger.default_pipeline',
    });
    expect(configuration.some((f) => f.project === 'good')).toBe(false);
    expect(configuration).toHaveLength(3);
    expect(findings.blocking).toBe(3);
    expect(server.output()).toMatch(/configuration loaded from .*bad-project\.yml: 2 project\(s\), 3 finding\(s\)/);
  });
});
