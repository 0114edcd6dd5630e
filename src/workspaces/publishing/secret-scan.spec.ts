import { describe, expect, it } from 'vitest';
import type { FileAdditions } from '../git/added-lines.js';
import { describeFindings, scanForSecrets, scanPathsForSecrets } from './secret-scan.js';

/** A file whose added lines are `texts`, numbered from 1. */
const file = (path: string, texts: string[]): FileAdditions => ({ path, lines: texts.map((text, i) => ({ number: i + 1, text })) });

const GH = `ghp_${'a1B2c3D4e5'.repeat(4).slice(0, 36)}`;

describe('secret scan of a change', () => {
  it('finds each well-known token shape and names file, line and rule but never the value', async () => {
    const cases: [string, string][] = [
      ['github-token', `token = "${GH}"`],
      ['github-fine-grained-token', `github_pat_${'A'.repeat(22)}_${'b'.repeat(59)}`],
      ['gitlab-token', 'GL=glpat-abcdefghij0123456789xyz'],
      ['aws-access-key-id', 'AKIAIOSFODNN7EXAMPLE'],
      ['aws-secret-access-key', 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
      ['private-key', '-----BEGIN OPENSSH PRIVATE KEY-----'],
      ['azure-storage-key', `DefaultEndpointsProtocol=https;AccountName=x;AccountKey=${'Ab1+'.repeat(21)}Ab==`],
      ['azure-devops-pat', `${'x'.repeat(52)}JQQJ99abcAZDOwxyz`],
    ];
    for (const [rule, line] of cases) {
      const findings = await scanForSecrets([file('src/config.ts', ['harmless', line])], []);
      expect(findings, rule).toEqual([{ path: 'src/config.ts', line: 2, rule }]);
    }
  });

  it('finds configured secret values also when base64-encoded or split over lines', async () => {
    const secret = 'tok-Very-Secret-9876';
    const encoded = Buffer.from(`x-access-token:${secret}`).toString('base64');
    expect(await scanForSecrets([file('a.txt', [`auth: ${encoded}`])], [secret])).toEqual([{ path: 'a.txt', line: 1, rule: 'configured-secret' }]);
    expect((await scanForSecrets([file('b.txt', ['x', secret.toUpperCase()])], [secret]))[0]).toMatchObject({ line: 2, rule: 'configured-secret' });
    expect((await scanForSecrets([file('c.txt', ['tok-Very-Se', '  cret-9876'])], [secret]))[0]?.rule).toBe('configured-secret');
  });

  it('leaves ordinary code alone', async () => {
    const lines = ['const sha = "3f786850e387550fdab836ed7e6dc881de23001b";', 'AKIA is a prefix', 'ghp_short', '-----BEGIN PUBLIC KEY-----'];
    expect(await scanForSecrets([file('x.ts', lines)], ['some-configured-secret'])).toEqual([]);
  });

  it('describes findings by path and rule only', async () => {
    const findings = await scanForSecrets([file('.env', [GH]), file('k.pem', ['-----BEGIN RSA PRIVATE KEY-----'])], []);
    const text = describeFindings(findings);
    expect(text).toBe('.env line 1 (rule github-token), k.pem line 1 (rule private-key)');
    expect(text).not.toContain(GH);
  });

  it('finds a token deep in a long minified line, in UTF-16 text, and in a file name, without repeating the name', async () => {
    const long = `${'x'.repeat(200_000)};var t="${GH}";`;
    expect(await scanForSecrets([file('bundle.min.js', [long])], [])).toEqual([{ path: 'bundle.min.js', line: 1, rule: 'github-token' }]);
    const utf16 = Array.from(`k=${GH}`).join('\u0000');
    expect((await scanForSecrets([file('win.txt', [utf16])], []))[0]?.rule).toBe('github-token');
    const secret = 'tok-Very-Secret-9876';
    expect((await scanForSecrets([file('u16.txt', [Array.from(secret).join('\u0000')])], [secret]))[0]?.rule).toBe('configured-secret');
    const named = scanPathsForSecrets([`cache/${GH}/x`, `a-${secret}.txt`, 'plain.txt'], [secret]);
    expect(named.map((f) => f.rule).sort()).toEqual(['configured-secret', 'github-token']);
    expect(describeFindings(named)).not.toContain(GH);
    expect(describeFindings(named)).not.toContain(secret);
  });

  it('refuses a file too large to scan instead of reading it at any cost', async () => {
    const big = 'a'.repeat(1024 * 1024);
    const lines = Array.from({ length: 17 }, () => big);
    expect(await scanForSecrets([file('huge.txt', lines)], ['some-secret'])).toEqual([{ path: 'huge.txt', line: 1, rule: 'too-large-to-scan' }]);
  });
});
