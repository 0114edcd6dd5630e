import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { stringify } from 'yaml';
import { encryptSecret } from '../../src/secrets/secret-cipher.js';
import { type TestDatabase, createTestDatabase } from '../support/test-database.js';
import type { FindingsBody } from '../support/response-bodies.js';
import { requireBuild, runCli, tempDir } from '../support/server-process.js';

/** The built CLI through bin/pipeline-service.js: `doctor` and `migrate`. */
interface DoctorJson extends FindingsBody {
  preflight: {
    status: string;
    completed_at_utc: string | null;
    passed: number;
    failed: number;
    skipped: number;
    failures: { name: string; message: string; fix_hint: string }[];
    checks: { name: string; category: string; status: string; message: string; fix_hint: string }[];
  };
}

const dir = tempDir('e2e-cli');
let migrated: TestDatabase;
let fresh: TestDatabase;
const goodConfig = join(dir.dir, 'good.yml');
const brokenConfig = join(dir.dir, 'broken.yml');

beforeAll(async () => {
  requireBuild();
  [migrated, fresh] = await Promise.all([
    createTestDatabase('e2e_cli'),
    createTestDatabase('e2e_cli_fresh', { migrated: false }),
  ]);
  writeFileSync(goodConfig, stringify({ projects: { shop: { tracker: 'platform-a', repos: [{ name: 'w', platform: 'platform-a', url: 'https://github.com/acme/w', auth_secret: 'ghp_e2eCliRepositoryToken01' }] } } }));
  writeFileSync(brokenConfig, stringify({ projects: { shop: { tracker: 'platform-z' } } }));
});

afterAll(async () => {
  await migrated?.drop();
  await fresh?.drop();
  dir.remove();
});

describe('pipeline-service doctor', () => {
  it('--json: exit 0 when nothing blocks; the findings shape of GET /api/config/findings plus preflight', async () => {
    const result = await runCli(['doctor', '--config', goodConfig, '--json'], { DATABASE_URL: migrated.url, SERVICE_DATA_DIR: dir.dir });
    expect(result.code, result.stderr + result.stdout).toBe(0);
    const report = JSON.parse(result.stdout) as DoctorJson;
    expect(Object.keys(report).sort()).toEqual(['advisory', 'blocking', 'degraded', 'findings', 'firstRun', 'preflight']);
    // A project, no store: the one thing between this configuration and a first run, said plainly.
    expect((report as unknown as { firstRun: string[] }).firstRun).toEqual([expect.stringContaining('KVSTORE_URL=embedded')]);
    expect(report).toMatchObject({ degraded: false, blocking: 0, advisory: 1 });
    expect(report.findings).toEqual([
      { subsystem: 'redis', severity: 'advisory', reason: expect.stringContaining('KVSTORE_URL'), project: null, trigger: null, field: 'KVSTORE_URL' },
    ]);
    expect(report.preflight).toMatchObject({ status: 'pass', failed: 0, failures: [] });
    expect(report.preflight.completed_at_utc).not.toBeNull();
    const names = report.preflight.checks.map((c) => c.name);
    for (const name of ['config-file', 'configuration', 'database', 'redis', 'sandbox-backend', 'sandbox-agent']) expect(names).toContain(name);
    expect(report.preflight.passed + report.preflight.failed + report.preflight.skipped).toBe(report.preflight.checks.length);
  });

  it('checks the configured skills folders: a malformed skill is an advisory finding naming its path, nothing blocks', async () => {
    const skills = join(dir.dir, 'skills');
    mkdirSync(join(skills, 'no-description'), { recursive: true });
    writeFileSync(join(skills, 'no-description', 'SKILL.md'), '---\nname: no-description\n---\nbody\n');
    const config = join(dir.dir, 'skills.yml');
    writeFileSync(config, stringify({ skills: { paths: ['skills', 'missing-folder'] } }));
    const result = await runCli(['doctor', '--config', config, '--json'], { DATABASE_URL: migrated.url, SERVICE_DATA_DIR: dir.dir });
    expect(result.code, result.stderr + result.stdout).toBe(0);
    const report = JSON.parse(result.stdout) as DoctorJson;
    expect(report.findings.filter((f) => f.subsystem === 'skills')).toEqual([
      { subsystem: 'skills', severity: 'advisory', project: null, trigger: null, field: 'skills.paths',
        reason: `skill ${join(skills, 'no-description')} is left out: the front matter has no description (a non-empty string)` },
      { subsystem: 'skills', severity: 'advisory', project: null, trigger: null, field: 'skills.paths',
        reason: `skills folder ${join(dir.dir, 'missing-folder')} does not exist; no skills are read from it` },
    ]);
  });

  it('exit 1 when anything blocks, naming the project', async () => {
    const result = await runCli(['doctor', '--config', brokenConfig, '--json'], { DATABASE_URL: migrated.url, SERVICE_DATA_DIR: dir.dir });
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as DoctorJson;
    expect(report.degraded).toBe(true);
    expect(report.blocking).toBe(1);
    expect(report.findings).toContainEqual({
      subsystem: 'configuration', severity: 'blocking', reason: expect.stringContaining('shop'), project: 'shop', trigger: null, field: 'projects.shop.tracker',
    });
    expect(report.preflight.failures.map((f) => f.name)).toEqual(['configuration']);
  });

  it('exit 1 on pending migrations, in plain text naming the command', async () => {
    const result = await runCli(['doctor', '--config', goodConfig], { DATABASE_URL: fresh.url, SERVICE_DATA_DIR: dir.dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`pipeline-service doctor: ${goodConfig}`);
    expect(result.stdout).toContain('Before a first run:\n  - No store is set (KVSTORE_URL), so no run can be queued.');
    expect(result.stdout).toMatch(/FAIL\s+database/);
    expect(result.stdout).toContain('npm run migrate');
    expect(result.stdout).toMatch(/Findings: 1 blocking, 1 advisory/);
  });

  it('SERVICE_CONFIG is used without --config; an absent file is advisory', async () => {
    const result = await runCli(['doctor', '--json'], { DATABASE_URL: migrated.url, SERVICE_DATA_DIR: dir.dir, SERVICE_CONFIG: join(dir.dir, 'absent.yml') });
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as DoctorJson;
    expect(report.findings.map((f) => [f.subsystem, f.severity, f.field])).toContainEqual(['config-file', 'advisory', 'SERVICE_CONFIG']);
  });
});

describe('pipeline-service doctor with stored secrets and settings', () => {
  it('judges the configuration the server runs on: the file with the stored settings over it and ${NAME} resolved from the stored secrets', async () => {
    const stored = await createTestDatabase('e2e_cli_stored');
    try {
      const key = randomBytes(32);
      const config = join(dir.dir, 'stored.yml');
      writeFileSync(config, stringify({ projects: { shop: { tracker: 'platform-z', repos: [{ name: 'w', platform: 'platform-a', url: 'https://github.com/acme/w', auth_secret: '${DOCTOR_TOKEN}' }] } } }));
      const vars = { DATABASE_URL: stored.url, SERVICE_DATA_DIR: dir.dir, SERVICE_SECRETS_KEY: key.toString('base64') };
      const blockingFields = async () => {
        const report = JSON.parse((await runCli(['doctor', '--config', config, '--json'], vars)).stdout) as DoctorJson;
        return report.findings.filter((f) => f.severity === 'blocking').map((f) => f.field);
      };
      expect(await blockingFields()).toEqual(['projects.shop.tracker']);
      const client = new pg.Client({ connectionString: stored.url });
      await client.connect();
      try {
        // A stored setting mends the tracker: now the repository is read, and its token is missing.
        await client.query(`INSERT INTO config_settings (key, value, updated_by) VALUES ('projects.shop.tracker', '"platform-a"', 'test')`);
        expect(await blockingFields()).toEqual(['projects.shop.repos[0].auth_secret']);
        await client.query(`INSERT INTO secrets (name, value, updated_by) VALUES ('DOCTOR_TOKEN', $1, 'test')`, [encryptSecret(key, 'DOCTOR_TOKEN', 'ghp_doctorStoredToken0001')]);
      } finally {
        await client.end();
      }
      const result = await runCli(['doctor', '--config', config, '--json'], vars);
      expect(result.code, result.stdout).toBe(0);
      const after = JSON.parse(result.stdout) as DoctorJson;
      expect(after.blocking).toBe(0);
      expect(result.stdout).not.toContain('ghp_doctorStoredToken0001');
    } finally {
      await stored.drop();
    }
  });
});

describe('pipeline-service migrate', () => {
  it('applies every migration once; the second run says the database is up to date', async () => {
    const first = await runCli(['migrate'], { DATABASE_URL: fresh.url });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/applied \d+ migration\(s\): initial1700000000001/);
    const second = await runCli(['migrate'], { DATABASE_URL: fresh.url });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout.trim()).toBe('database is up to date');
    // Doctor now agrees.
    const doctor = await runCli(['doctor', '--config', goodConfig, '--json'], { DATABASE_URL: fresh.url, SERVICE_DATA_DIR: dir.dir });
    expect(doctor.code).toBe(0);
  });

  it('exit 1 with a message when the database cannot be reached', async () => {
    const result = await runCli(['migrate'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('pipeline-service:');
  });
});
