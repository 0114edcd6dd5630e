import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import AjvDraft04 from 'ajv-draft-04';
import ajvFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderScanReport } from '../../src/pipelines/security-scan/scan-report.js';
import type { ScanFinding, ScannerReport } from '../../src/pipelines/security-scan/scan-finding.js';
import { toSarif } from '../../src/pipelines/security-scan/sarif.js';
import { auditNpmDependencies } from '../../src/pipelines/security-scan/scanners/dependency-audit.scanner.js';
import { scanHistoryForSecrets } from '../../src/pipelines/security-scan/scanners/history-secrets.scanner.js';
import { scanTreeForSecrets } from '../../src/pipelines/security-scan/scanners/tree-secrets.scanner.js';
import { InProcessBackend } from '../../src/sandbox/in-process.backend.js';
import { tarOf } from '../support/tar-archives.js';
import { NpmRegistryStandIn } from './npm-registry-stand-in.js';
import { committedTree, createScanRepository, tempDirectory } from './scan-repositories.js';

// The official schema (source in test/fixtures/sarif/README.md); draft-04, with formats checked.
const schema = JSON.parse(readFileSync(new URL('../fixtures/sarif/sarif-schema-2.1.0.json', import.meta.url), 'utf8'));
// CommonJS packages: their `default` export is the class and the plugin.
const ajv = new AjvDraft04.default({ allErrors: true, strict: false });
ajvFormats.default(ajv);
const validate = ajv.compile(schema);

const GH = ['ghp', '_', 'R8x2Lq9ZtW4vN7mK3pYc6bHs1dFg5jAe0uQi'].join('');
const REMOVED = ['glpat', '-', 'Removed7Kp2Lm9Qr4Tv8Wz1'].join('');
const QUOTED = ['AKIA', 'Q3XW7ZP2LM8RT4VN'].join('');
const KEY_BODY = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7';
const backend = new InProcessBackend(`${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`);

describe('SARIF 2.1.0 and the markdown report of a whole scan', () => {
  const dir = tempDirectory('scan-sarif-');
  const registry = new NpmRegistryStandIn(
    { minimist: [{ id: 1097678, url: 'https://github.com/advisories/GHSA-xvch-5gv4-984h', title: 'Prototype Pollution in minimist', severity: 'critical', vulnerable_versions: '<1.2.6', cwe: ['CWE-1321'], cvss: { score: 9.8, vectorString: null } }] },
    { minimist: { '1.2.5': {}, '1.2.6': {} } },
  );
  let reports: ScannerReport[] = [];

  beforeAll(async () => {
    await registry.start();
    const bare = join(dir.path, 'shop.git');
    const shas = createScanRepository(bare, [
      { 'src/old.ts': `export const t = "${REMOVED}";\n` },
      { 'src/old.ts': null, 'web app/.env': `GITHUB_TOKEN=${GH}\nDB_PASSWORD=Xk29fLq8Zr7mWp3N\n` },
    ]);
    const tree = committedTree(bare, shas.at(-1)!, 'shop');
    const inTree = await scanTreeForSecrets(tree, { repo: 'shop' });
    const history = await scanHistoryForSecrets(tree, { repo: 'shop', inTree: inTree.fingerprints });

    const lock = JSON.stringify({ name: 'shop', lockfileVersion: 3, requires: true, packages: { '': { name: 'shop', dependencies: { minimist: '^1.2.0' } }, 'node_modules/minimist': { version: '1.2.5' } } }, null, 2);
    const withLock = await backend.create({ runId: `sarif-${process.pid}`, name: 'shop', env: {} });
    const withoutLock = await backend.create({ runId: `sarif-${process.pid}`, name: 'docs', env: {} });
    try {
      await withLock.putArchive(tarOf([{ name: 'package-lock.json', content: lock }, { name: '.npmrc', content: `registry=${registry.url}\n` }]));
      const audit = await auditNpmDependencies(withLock, { repo: 'shop' });
      const notRun = { ...(await auditNpmDependencies(withoutLock, { repo: 'docs' })), name: 'npm audit (docs)' };
      reports = [inTree.report, history, audit, notRun, { tool: 'model', name: 'model review', ran: true, note: null, findings: [modelFinding()], durationMs: 1200 }];
    } finally {
      await Promise.all([withLock.destroy(), withoutLock.destroy()]);
    }
  });
  afterAll(async () => {
    await registry.stop();
    dir.remove();
  });

  it('has tree, history, dependency and model findings and a scanner that did not run', () => {
    expect(reports.map((r) => [r.name, r.ran, r.findings.length])).toEqual([
      ['secrets in the tree', true, 2],
      ['secrets in history', true, 1],
      ['npm audit', true, 1],
      ['npm audit (docs)', false, 0],
      ['model review', true, 1],
    ]);
  });

  it('validates against the official SARIF 2.1.0 schema', () => {
    const sarif = toSarif(reports, { toolVersion: '0.1.0', repoUriBase: 'https://git.example.test/acme/' });
    const valid = validate(JSON.parse(JSON.stringify(sarif)));
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    // And without a base URI too.
    expect(validate(JSON.parse(JSON.stringify(toSarif(reports, { toolVersion: '0.1.0' }))))).toBe(true);
    expect(validate({ version: '2.1.0', runs: [{ tool: {} }] })).toBe(false); // the validator does reject
  });

  it('maps severities, locations, fingerprints, challenges and the scanners that did not run', () => {
    const run = toSarif(reports, { toolVersion: '0.1.0', repoUriBase: 'https://git.example.test/acme' }).runs[0]!;
    expect(run.tool.driver.name).toBe('pipeline-service security-scan');
    expect(run.originalUriBaseIds).toEqual({ REPOROOT: { uri: 'https://git.example.test/acme/' } });
    const rule = (id: string) => run.tool.driver.rules.find((r) => r.id === id)!;
    expect(rule('npm-audit/GHSA-xvch-5gv4-984h')).toMatchObject({ defaultConfiguration: { level: 'error' }, properties: { severity: 'critical', 'security-severity': '9.5' }, helpUri: 'https://github.com/advisories/GHSA-xvch-5gv4-984h' });
    expect(rule('high-entropy-string')).toMatchObject({ defaultConfiguration: { level: 'warning' }, properties: { severity: 'medium', 'security-severity': '5.5' } });
    expect(rule('model/sql-injection')).toMatchObject({ defaultConfiguration: { level: 'note' }, properties: { severity: 'low', 'security-severity': '3.0' } });
    const github = run.results.find((r) => r.ruleId === 'github-token')!;
    expect(github).toMatchObject({ level: 'error', locations: [{ physicalLocation: { artifactLocation: { uri: 'shop/web%20app/.env', uriBaseId: 'REPOROOT' }, region: { startLine: 1 } } }] });
    expect(run.results[github.ruleIndex]).toBeDefined();
    expect(run.tool.driver.rules[github.ruleIndex]!.id).toBe('github-token');
    expect(Object.values(github.partialFingerprints)[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(run.results.find((r) => r.ruleId === 'gitlab-token')!.properties.commit).toMatch(/^[0-9a-f]{12}$/);
    const model = run.results.find((r) => r.ruleId === 'model/sql-injection')!;
    expect(model).toMatchObject({ level: 'note', properties: { challenge: 'confirmed', tool: 'model' }, locations: [{ physicalLocation: { region: { startLine: 10, endLine: 14 } } }] });
    expect(run.invocations[0]).toMatchObject({
      executionSuccessful: false,
      toolExecutionNotifications: [{ level: 'warning', message: { text: 'npm audit (docs) did not run: no package-lock.json' } }],
    });
  });

  it('renders the markdown report: counts, scanners, the one that did not run, a table of findings', () => {
    const markdown = renderScanReport(reports);
    expect(markdown).toContain('**5 findings**: 1 critical, 2 high, 1 medium, 1 low, 0 info.');
    expect(markdown).toContain('- **npm audit (docs)**: no package-lock.json');
    expect(markdown).toContain('| npm audit (docs) | **did not run**: no package-lock.json |');
    expect(markdown).toMatch(/\| 1 \| critical \| minimist .*Prototype Pollution in minimist \| shop\/package-lock.json:\d+ \| dependencies \(npm-audit\/GHSA-xvch-5gv4-984h\) \|/);
    expect(markdown).toContain('| GitHub token ghp_…(40 chars) in web app/.env | shop/web app/.env:1 | secrets (github-token) |');
    expect(markdown).toMatch(/GitLab token glpat-…\(29 chars\) removed from the tree but still in history \| shop\/src\/old.ts:1 \(commit [0-9a-f]{12}\)/);
    expect(markdown).toContain('| model, confirmed |');
  });

  it('never carries a secret value, not even one a model finding quoted', () => {
    const outputs = [JSON.stringify(toSarif(reports, { toolVersion: '0.1.0' })), renderScanReport(reports), JSON.stringify(reports.filter((r) => r.tool !== 'model'))];
    for (const output of outputs) {
      for (const value of [GH, REMOVED, 'Xk29fLq8Zr7mWp3N']) expect(output).not.toContain(value.slice(6));
    }
    for (const output of outputs.slice(0, 2)) {
      expect(output).not.toContain(QUOTED);
      expect(output).not.toContain(KEY_BODY);
    }
  });
});

function modelFinding(): ScanFinding {
  return {
    tool: 'model',
    ruleId: 'model/sql-injection',
    severity: 'low',
    title: 'User input reaches a SQL string | unescaped',
    detail: `The handler builds the query by concatenation. It also logs aws key ${QUOTED} and:\n-----BEGIN RSA PRIVATE KEY-----\n${KEY_BODY}\n-----END RSA PRIVATE KEY-----`,
    suggestion: 'Use a parameterised query.',
    repo: 'shop',
    path: 'src/orders.ts',
    line: 10,
    endLine: 14,
    commit: null,
    challenge: 'confirmed',
  };
}
