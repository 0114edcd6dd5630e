import { renameSync, writeFileSync } from 'node:fs';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigService } from '../../src/config/config.service.js';
import type { Finding } from '../../src/findings/finding.js';
import { OidcAuthority } from '../stand-ins/oidc-authority.js';
import { type AuthBench, bearer, bootApp, createAuthBench, eventually } from '../auth/support/auth-harness.js';

/**
 * Live reload of the bootstrap file on a running server (real PostgreSQL, the OIDC stand-in,
 * enforcement on): edits apply without a restart, their findings follow, a broken file keeps the
 * last readable one in force, and the bootstrap settings (here written in the file) stay as
 * started until a restart.
 */
let idp: OidcAuthority;
let bench: AuthBench;
let app: NestFastifyApplication;
let root: string;

const fileWith = (changes: { queue?: Record<string, unknown>; auth?: Record<string, unknown>; runs?: Record<string, unknown> } = {}) => ({
  sandbox: { backend: 'in-process' },
  auth: { authority: idp.authority, audience: idp.defaultAudience, enforce: true, name_claim: 'email', ...changes.auth },
  queue: { max_parallel_runs: 2, ...changes.queue },
  ...(changes.runs ? { runs: changes.runs } : {}),
});
const parallelRuns = () => app.get(ConfigService).config.queue.max_parallel_runs;
const findings = async (): Promise<Finding[]> => (await app.inject({ method: 'GET', url: '/api/config/findings' })).json().findings;
const findingAt = async (field: string) => (await findings()).find((f) => f.field === field);
const configKey = async (key: string) =>
  (await app.inject({ method: 'GET', url: '/api/config', headers: bearer(root) })).json().keys.find((k: { key: string }) => k.key === key);
const until = <T>(what: string, probe: () => Promise<T | undefined> | T | undefined) => eventually(probe, 10_000, what);

beforeAll(async () => {
  idp = await OidcAuthority.start();
  bench = await createAuthBench('live_reload');
  bench.writeConfig(fileWith());
  app = await bootApp(bench.environment({ SERVICE_ADMIN_GRANT: 'sub:root' }));
  root = idp.mint({ sub: 'root', claims: { email: 'root@example.test' } });
}, 60_000);

afterAll(async () => {
  await app?.close();
  await bench?.cleanup();
  await idp?.stop();
});

describe('an edited bootstrap file', () => {
  it('applies without a restart, and its findings follow it', async () => {
    expect(parallelRuns()).toBe(2);
    bench.writeConfig(fileWith({ queue: { max_parallel_runs: 6 } }));
    await until('the edit applies', () => (parallelRuns() === 6 ? true : undefined));
    expect(await configKey('queue.max_parallel_runs')).toEqual({ key: 'queue.max_parallel_runs', value: 6, source: 'file' });

    bench.writeConfig(fileWith({ queue: { max_parallel_runs: 6 }, runs: { retention_days: 0 } }));
    const finding = await until('a finding for the bad value', () => findingAt('runs.retention_days'));
    expect(finding).toMatchObject({ subsystem: 'configuration', severity: 'blocking' });
    bench.writeConfig(fileWith({ queue: { max_parallel_runs: 6 }, runs: { retention_days: 30 } }));
    await until('the finding clears', async () => ((await findingAt('runs.retention_days')) ? undefined : true));
  });

  it('applies when saved the way editors do: a new file renamed over the old one', async () => {
    const temporary = `${bench.configPath}.swp`;
    writeFileSync(temporary, stringify(fileWith({ queue: { max_parallel_runs: 5 } })));
    renameSync(temporary, bench.configPath);
    await until('the renamed file applies', () => (parallelRuns() === 5 ? true : undefined));
  });

  it('turned into broken YAML, keeps the last readable version in force and says why, until it is fixed', async () => {
    writeFileSync(bench.configPath, 'queue:\n  max_parallel_runs: "unterminated\n');
    const finding = await until('the broken-file finding', () => findingAt('SERVICE_CONFIG'));
    expect(finding).toMatchObject({ subsystem: 'configuration', severity: 'blocking', reason: expect.stringContaining('stays in force') });
    expect(parallelRuns()).toBe(5);
    // Still serving, still enforcing.
    expect((await app.inject({ method: 'GET', url: '/api/config', headers: bearer(root) })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/api/config' })).statusCode).toBe(401);

    bench.writeConfig(fileWith({ queue: { max_parallel_runs: 4 } }));
    await until('the fixed file applies', () => (parallelRuns() === 4 ? true : undefined));
    expect(await findingAt('SERVICE_CONFIG')).toBeUndefined();
  });

  it('does not override a stored setting, which stays in force until removed', async () => {
    expect((await app.inject({ method: 'PUT', url: '/api/config/settings/queue.max_parallel_runs', headers: bearer(root), payload: { value: 9 } })).statusCode).toBe(200);
    bench.writeConfig(fileWith({ queue: { max_parallel_runs: 7 } }));
    const fileSays = () => (app.get(ConfigService).fileRaw as { queue: { max_parallel_runs: number } }).queue.max_parallel_runs;
    await until('the file edit is read', () => (fileSays() === 7 ? true : undefined));
    expect(parallelRuns()).toBe(9);
    expect((await app.inject({ method: 'DELETE', url: '/api/config/settings/queue.max_parallel_runs', headers: bearer(root) })).statusCode).toBe(200);
    expect(parallelRuns()).toBe(7);
  });
});

describe('a bootstrap setting changed in the file', () => {
  it('stays as started (tokens of the old authority still validate), with a restart-due finding until the file goes back', async () => {
    bench.writeConfig(fileWith({ auth: { authority: idp.authorityV2, enforce: false } }));
    const finding = await until('the restart-due finding', () => findingAt('auth.authority'));
    expect(finding).toMatchObject({ subsystem: 'configuration', severity: 'advisory', reason: expect.stringContaining('restart') });
    expect(await findingAt('auth.enforce')).toMatchObject({ severity: 'advisory' });
    expect(app.get(ConfigService).config.auth).toMatchObject({ authority: idp.authority, enforce: true });
    // The old authority's token validates; enforcement is still on.
    expect((await app.inject({ method: 'GET', url: '/api/identity', headers: bearer(root) })).json()).toMatchObject({ authenticated: true, issuer: idp.issuer });
    expect((await app.inject({ method: 'GET', url: '/api/config' })).statusCode).toBe(401);
    expect(await configKey('auth.authority')).toEqual({ key: 'auth.authority', value: idp.authority, source: 'file', bootstrap: true, restartDue: true, configured: idp.authorityV2 });

    bench.writeConfig(fileWith({ queue: { max_parallel_runs: 7 } }));
    await until('the finding clears once the file is back', async () => ((await findingAt('auth.authority')) ? undefined : true));
    expect(await findingAt('auth.enforce')).toBeUndefined();
    expect(await configKey('auth.authority')).toEqual({ key: 'auth.authority', value: idp.authority, source: 'file', bootstrap: true });
  });

  it('applies after a restart, with no restart-due finding', async () => {
    bench.writeConfig(fileWith({ auth: { enforce: false } }));
    await until('the restart-due finding', () => findingAt('auth.enforce'));
    const restarted = await bootApp(bench.environment({ SERVICE_ADMIN_GRANT: 'sub:root' }));
    try {
      expect(restarted.get(ConfigService).config.auth?.enforce).toBe(false);
      expect(restarted.get(ConfigService).bootstrapSettings.some((s) => s.restartDue)).toBe(false);
      expect((await restarted.inject({ method: 'GET', url: '/api/config' })).statusCode).toBe(200);
    } finally {
      await restarted.close();
    }
  });
});
