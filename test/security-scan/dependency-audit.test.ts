import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { auditNpmDependencies } from '../../src/pipelines/security-scan/scanners/dependency-audit.scanner.js';
import { InProcessBackend } from '../../src/sandbox/in-process.backend.js';
import type { Sandbox } from '../../src/sandbox/sandbox-backend.js';
import { tarOf } from '../support/tar-archives.js';
import { NpmRegistryStandIn } from './npm-registry-stand-in.js';

// The machine's real npm, run by the in-process sandbox (its PATH: node's directory first).
const backend = new InProcessBackend(`${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`);

const GHSA_MINIMIST = 'GHSA-xvch-5gv4-984h';
const registry = new NpmRegistryStandIn(
  {
    minimist: [
      { id: 1097678, url: `https://github.com/advisories/${GHSA_MINIMIST}`, title: 'Prototype Pollution in minimist', severity: 'critical', vulnerable_versions: '>=1.0.0 <1.2.6', cwe: ['CWE-1321'], cvss: { score: 9.8, vectorString: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' } },
    ],
    'qs-lite': [{ id: 2000001, url: 'https://github.com/advisories/GHSA-p6mc-m468-83gw', title: 'Denial of service in qs-lite', severity: 'moderate', vulnerable_versions: '<2.0.0', cwe: ['CWE-400'], cvss: { score: 5.3, vectorString: null } }],
  },
  {
    minimist: { '1.2.5': {}, '1.2.6': {}, '1.2.8': {} },
    'qs-lite': { '1.0.0': {}, '2.0.0': {} },
    'left-pad': { '1.3.0': {} },
    wrapper: { '1.0.0': { 'qs-lite': '^1.0.0' }, '2.0.0': { 'qs-lite': '^2.0.0' } },
  },
);

/** A lockfile (v3) whose project depends on minimist 1.2.5, left-pad and wrapper (which brings qs-lite 1.0.0). */
const LOCKFILE = JSON.stringify(
  {
    name: 'demo',
    version: '1.0.0',
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: 'demo', version: '1.0.0', dependencies: { 'left-pad': '^1.3.0', minimist: '^1.2.0', wrapper: '^1.0.0' } },
      'node_modules/left-pad': { version: '1.3.0' },
      'node_modules/minimist': { version: '1.2.5' },
      'node_modules/qs-lite': { version: '1.0.0' },
      'node_modules/wrapper': { version: '1.0.0', dependencies: { 'qs-lite': '^1.0.0' } },
    },
  },
  null,
  2,
);
const PACKAGE_JSON = JSON.stringify({ name: 'demo', version: '1.0.0', dependencies: { 'left-pad': '^1.3.0', minimist: '^1.2.0', wrapper: '^1.0.0' } });

async function sandboxWith(files: Record<string, string>): Promise<Sandbox> {
  const sandbox = await backend.create({ runId: `audit-${process.pid}-${Date.now()}`, name: 'demo', env: {} });
  await sandbox.putArchive(tarOf(Object.entries(files).map(([name, content]) => ({ name, content, mode: 0o644 }))));
  created.push(sandbox);
  return sandbox;
}
const created: Sandbox[] = [];

describe('npm audit in a real sandbox with the real npm', () => {
  beforeAll(() => registry.start());
  afterAll(() => registry.stop());
  afterEach(async () => {
    await Promise.all(created.splice(0).map((s) => s.destroy()));
  });

  it('reports one finding per vulnerable package from the bulk advisory endpoint', async () => {
    const sandbox = await sandboxWith({ 'package.json': PACKAGE_JSON, 'package-lock.json': LOCKFILE, '.npmrc': `registry=${registry.url}\n` });
    const report = await auditNpmDependencies(sandbox, { repo: 'shop' });
    expect(report).toMatchObject({ tool: 'dependencies', name: 'npm audit', ran: true, note: null });
    // What npm sent: every locked package with its version, gzip-encoded.
    expect(registry.bulkRequests.at(-1)).toEqual({ 'left-pad': ['1.3.0'], minimist: ['1.2.5'], 'qs-lite': ['1.0.0'], wrapper: ['1.0.0'] });
    const byRule = Object.fromEntries(report.findings.map((f) => [f.ruleId, f]));
    const lockLine = (entry: string) => LOCKFILE.split('\n').findIndex((l) => l.includes(`"${entry}": {`)) + 1;
    expect(byRule[`npm-audit/${GHSA_MINIMIST}`]).toMatchObject({
      severity: 'critical',
      repo: 'shop',
      path: 'package-lock.json',
      line: lockLine('node_modules/minimist'),
      title: expect.stringMatching(/^minimist .+: Prototype Pollution in minimist$/),
      suggestion: expect.stringContaining('npm audit fix'),
    });
    expect(byRule['npm-audit/GHSA-p6mc-m468-83gw']).toMatchObject({ severity: 'medium', line: lockLine('node_modules/qs-lite') });
    // wrapper is vulnerable only through qs-lite: its rule names the package.
    expect(byRule['npm-audit/wrapper']).toMatchObject({
      severity: 'medium',
      line: lockLine('node_modules/wrapper'),
      title: 'wrapper 1.0.0: vulnerable through qs-lite',
      suggestion: 'Upgrade wrapper to 2.0.0 (a semver-major change: check its breaking changes first).',
    });
    expect(report.findings).toHaveLength(3);
    expect(report.findings[0]!.severity).toBe('critical');
  });

  it('reports not run, with the reason, when the registry cannot be reached', async () => {
    const closed = await closedPort();
    const sandbox = await sandboxWith({ 'package.json': PACKAGE_JSON, 'package-lock.json': LOCKFILE, '.npmrc': `registry=http://127.0.0.1:${closed}/\n` });
    const report = await auditNpmDependencies(sandbox);
    expect(report).toMatchObject({ ran: false, findings: [] });
    expect(report.note).toBe('npm audit could not reach the registry (ECONNREFUSED): the sandbox has no network, or the registry is down');
  });

  it('reports not run without a package-lock.json', async () => {
    const sandbox = await sandboxWith({ 'package.json': PACKAGE_JSON });
    expect(await auditNpmDependencies(sandbox)).toMatchObject({ ran: false, note: 'not run: no package-lock.json', findings: [] });
  });

  it('reports not run when npm is not in the image', async () => {
    const bare = new InProcessBackend('/nonexistent');
    const sandbox = await bare.create({ runId: `audit-nonpm-${process.pid}`, name: 'demo', env: {} });
    created.push(sandbox);
    await sandbox.putArchive(tarOf([{ name: 'package-lock.json', content: LOCKFILE, mode: 0o644 }]));
    // `command` and `[` are shell built-ins: the script still runs without a PATH.
    expect(await auditNpmDependencies(sandbox)).toMatchObject({ ran: false, note: 'not run: npm is not in the image' });
  });

  it('rejects with the signal’s reason when the run is stopped', async () => {
    const sandbox = await sandboxWith({ 'package.json': PACKAGE_JSON, 'package-lock.json': LOCKFILE, '.npmrc': `registry=${registry.url}\n` });
    const controller = new AbortController();
    const audit = auditNpmDependencies(sandbox, { signal: controller.signal });
    controller.abort(new Error('run cancelled'));
    await expect(audit).rejects.toThrow('run cancelled');
  });
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
