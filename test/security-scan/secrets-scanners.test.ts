import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanHistoryForSecrets } from '../../src/pipelines/security-scan/scanners/history-secrets.scanner.js';
import { scanTreeForSecrets } from '../../src/pipelines/security-scan/scanners/tree-secrets.scanner.js';
import type { ScannerReport } from '../../src/pipelines/security-scan/scan-finding.js';
import { committedTree, createScanRepository, tempDirectory } from './scan-repositories.js';

// Planted values: built at run time so this file itself holds no token a scanner would flag.
const GH = ['ghp', '_', 'R8x2Lq9ZtW4vN7mK3pYc6bHs1dFg5jAe0uQi'].join('');
const GITLAB = ['glpat', '-', 'x7Kp2Lm9Qr4Tv8Wz1Yb3'].join('');
const AWS_ID = ['AKIA', 'Q3XW7ZP2LM8RT4VN'].join('');
const AWS_SECRET = 'Zt8/Kp3mQ9rW+2vX7bN4cL6yH1sD5fG0jA8eU3iO';
const DB_PASSWORD = 'Xk29fLq8Zr7mWp3N';
const REMOVED = ['ghp', '_', 'Removed0Token9Abc8Def7Ghi6Jkl5Mno4Pq3'].join('');
const PLANTED = [GH, GITLAB, AWS_ID, AWS_SECRET, DB_PASSWORD, REMOVED];

/** Fails when any planted value, or any 12-character piece of one, appears in the reports. */
function expectNoSecretValues(...reports: ScannerReport[]): void {
  const text = JSON.stringify(reports);
  for (const value of PLANTED) {
    for (let at = 0; at + 12 <= value.length; at++) expect(text).not.toContain(value.slice(at, at + 12));
  }
}

describe('secrets in the tree and in history (real repositories)', () => {
  const dir = tempDirectory('scan-secrets-');
  const bare = join(dir.path, 'repo.git');
  let head = '';
  let removedIn = '';
  let addedIn = '';

  beforeAll(() => {
    const shas = createScanRepository(bare, [
      { 'README.md': '# demo\n', 'src/old-config.ts': `export const token = "${REMOVED}";\n`, 'kept.env': `GITHUB_TOKEN=${GH}\n` },
      { 'src/old-config.ts': 'export const token = process.env.GITHUB_TOKEN;\n' },
      {
        'config/app.yml': `name: demo\ngitlab:\n  token: ${GITLAB}\n`,
        '.env': `AWS_ACCESS_KEY_ID=${AWS_ID}\naws_secret_access_key = ${AWS_SECRET}\nDB_PASSWORD="${DB_PASSWORD}"\n`,
        'keys/deploy': '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n',
        'assets/logo.bin': Buffer.concat([Buffer.from([0, 1, 2, 0]), Buffer.from(GH)]),
        'dist/bundle.min.js': `${'var a=1;'.repeat(2000)}const k="${GH}";${'var b=2;'.repeat(2000)}\n`,
        'docs/caf\u00e9-latin1.txt': Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9]), Buffer.from(` menu\nkey: ${GITLAB}\n`)]),
        'data/huge.txt': `${'x'.repeat(1024 * 1024)}\nAPI_KEY=${DB_PASSWORD}\n`,
      },
    ]);
    [addedIn, removedIn, head] = [shas[0]!, shas[1]!, shas[2]!];
  });
  afterAll(() => dir.remove());

  it('finds each planted token in the tree with its rule, path and line, and a masked preview', async () => {
    const { report } = await scanTreeForSecrets(committedTree(bare, head));
    expect(report).toMatchObject({ tool: 'secrets', name: 'secrets in the tree', ran: true });
    const found = report.findings.map((f) => `${f.ruleId} ${f.path}:${f.line}`).sort();
    expect(found).toEqual(
      [
        'aws-access-key-id .env:1',
        'aws-secret-access-key .env:2',
        'github-token dist/bundle.min.js:1',
        'github-token kept.env:1',
        'gitlab-token config/app.yml:3',
        'gitlab-token docs/café-latin1.txt:2',
        'high-entropy-string .env:3',
        'private-key keys/deploy:1',
      ].sort(),
    );
    const github = report.findings.find((f) => f.path === 'kept.env')!;
    expect(github).toMatchObject({ severity: 'high', commit: null, repo: null, challenge: null, title: 'GitHub token ghp_…(40 chars) in kept.env' });
    expect(report.findings.find((f) => f.ruleId === 'high-entropy-string')).toMatchObject({ severity: 'medium', title: expect.stringContaining('DB_PASSWORD …(16 chars)') });
    // The binary file and the file over 1 MiB are not read; the note says what was skipped.
    expect(report.findings.some((f) => f.path === 'assets/logo.bin' || f.path === 'data/huge.txt')).toBe(false);
    expect(report.note).toContain('skipped 1 file over 1 MiB (data/huge.txt)');
    expect(report.note).toContain('inspected 1 line over 4 KiB in windows');
    expectNoSecretValues(report);
  });

  it('reports a token removed from the tree once, at the commit that added it, and leaves tree secrets to the tree', async () => {
    const tree = committedTree(bare, head, 'demo');
    const { report: treeReport, fingerprints } = await scanTreeForSecrets(tree, { repo: 'demo' });
    const history = await scanHistoryForSecrets(tree, { inTree: fingerprints, repo: 'demo' });
    expect(history).toMatchObject({ name: 'secrets in history', ran: true, note: 'skipped 1 change over 1 MiB (data/huge.txt); inspected 1 line over 4 KiB in windows' });
    expect(history.findings).toHaveLength(1);
    expect(history.findings[0]).toMatchObject({
      ruleId: 'github-token',
      path: 'src/old-config.ts',
      line: 1,
      repo: 'demo',
      commit: addedIn.slice(0, 12),
      severity: 'high',
    });
    expect(history.findings[0]!.detail).toContain('removed from the tree but still in history: rotate it');
    expect(removedIn).not.toBe(addedIn);
    expectNoSecretValues(treeReport, history);
  });

  it('without the tree fingerprints, history reports the secrets that are still in the tree too', async () => {
    const history = await scanHistoryForSecrets(committedTree(bare, head));
    expect(history.findings.map((f) => f.ruleId)).toEqual(expect.arrayContaining(['github-token', 'gitlab-token', 'aws-access-key-id', 'private-key']));
    expect(history.note).toContain('skipped 1 change over 1 MiB (data/huge.txt)');
  });

  it('stops git and rejects when its signal fires', async () => {
    const controller = new AbortController();
    controller.abort(new Error('run cancelled'));
    await expect(scanTreeForSecrets(committedTree(bare, head), { signal: controller.signal })).rejects.toThrow('run cancelled');
    await expect(scanHistoryForSecrets(committedTree(bare, head), { signal: controller.signal })).rejects.toThrow('run cancelled');
  });

  it('reports a git failure as not run, with the reason', async () => {
    const missing = 'f'.repeat(40);
    const { report } = await scanTreeForSecrets(committedTree(bare, missing));
    expect(report).toMatchObject({ ran: false, findings: [], note: expect.stringMatching(/^git ls-tree failed: /) });
    const history = await scanHistoryForSecrets(committedTree(bare, missing));
    expect(history).toMatchObject({ ran: false, findings: [], note: expect.stringMatching(/^git log failed: /) });
  });
});

describe('a clean tree', () => {
  const dir = tempDirectory('scan-clean-');
  afterAll(() => dir.remove());

  it('runs and finds nothing (git grep exits 1 on no match)', async () => {
    const bare = join(dir.path, 'clean.git');
    const [commit] = createScanRepository(bare, [{ 'a.txt': 'hello\n', 'b.ts': 'export const x = 1;\n' }]);
    const { report } = await scanTreeForSecrets(committedTree(bare, commit!));
    expect(report).toMatchObject({ ran: true, note: null, findings: [] });
  });
});

describe('the 500-commit limit of the history scan', () => {
  const dir = tempDirectory('scan-limit-');
  afterAll(() => dir.remove());

  it('reads the last 500 commits (merges aside) and no further', async () => {
    const bare = join(dir.path, 'long.git');
    const tooOld = ['ghp', '_', 'TooOld0Token9Abc8Def7Ghi6Jkl5Mno4Pqr3'].join('');
    const recent = ['ghp', '_', 'Recent0Token9Abc8Def7Ghi6Jkl5Mno4Pqr3'].join('');
    const commits = Array.from({ length: 505 }, (_, i) => ({ 'counter.txt': `${i}\n` }) as Record<string, string | null>);
    commits[2] = { 'old.txt': `token=${tooOld}\n` };
    commits[3] = { 'old.txt': null };
    commits[6] = { 'recent.txt': `token=${recent}\n` };
    commits[7] = { 'recent.txt': null };
    const shas = createScanRepository(bare, commits);
    const history = await scanHistoryForSecrets(committedTree(bare, shas.at(-1)!));
    expect(history.findings.map((f) => f.path)).toEqual(['recent.txt']);
    expect(history.findings[0]!.commit).toBe(shas[6]!.slice(0, 12));
    const deeper = await scanHistoryForSecrets(committedTree(bare, shas.at(-1)!), { maxCommits: 505 });
    expect(deeper.findings.map((f) => f.path).sort()).toEqual(['old.txt', 'recent.txt']);
    expect(JSON.stringify([history, deeper])).not.toContain(tooOld.slice(4));

    // Stopped while git is streaming: git is ended and the scan rejects with the reason.
    const controller = new AbortController();
    const running = scanHistoryForSecrets(committedTree(bare, shas.at(-1)!), { signal: controller.signal, maxCommits: 505 });
    controller.abort(new Error('shutting down'));
    await expect(running).rejects.toThrow('shutting down');
  });
});
