import { describe, expect, it } from 'vitest';
import { looksLikeSecret, shannonEntropy } from '../../src/pipelines/security-scan/scanners/entropy.js';
import { findSecrets } from '../../src/pipelines/security-scan/scanners/secret-matcher.js';

const generic = (line: string, path = 'src/settings.py') => findSecrets(line, path).filter((m) => m.rule === 'high-entropy-string');

describe('Shannon entropy', () => {
  it('measures bits per character', () => {
    expect(shannonEntropy('')).toBe(0);
    expect(shannonEntropy('aaaa')).toBe(0);
    expect(shannonEntropy('abab')).toBe(1);
    expect(shannonEntropy('0123456789abcdef')).toBe(4);
  });
});

describe('the generic high-entropy rule', () => {
  it('flags random values assigned to secret-looking names, quoted or bare, in many syntaxes', () => {
    const lines = [
      'DB_PASSWORD="Xk29fLq8Zr7mWp3N"',
      "api_key: 'q8Zr7mWp3NXk29fL'",
      'SECRET_KEY=9f86d081884c7d659a2feaa0c55ad015',
      '"client_secret": "Zt8/Kp3mQ9rW+2vX7bN4cL6y"',
      'token := `mWp3NXk29fLq8Zr7Q`',
      '$config["private_key"] => "Lq8Zr7mWp3NXk29f0"',
      'export AUTH_TOKEN=Hs1dFg5jAe0uQiR8x2Lq',
    ];
    for (const line of lines) expect(generic(line), line).toHaveLength(1);
    expect(generic(lines[0]!)[0]).toMatchObject({ label: 'high-entropy value assigned to DB_PASSWORD', preview: '…(16 chars)' });
  });

  it('leaves placeholders, references, words, short values and lockfile hashes alone', () => {
    const lines = [
      'password = "changeme-changeme-1"',
      'API_KEY=${API_KEY_FROM_ENVIRONMENT}',
      'token: "{{ secrets.deploy_token_1 }}"',
      'api_key = "<your-api-key-here-123>"',
      'secret = "xxxxxxxxxxxxxxxxxxxx"',
      'password = "aaaaaaaaaaaaaaaaaaaa"',
      'const token = process.env.GITHUB_TOKEN_2;',
      'password_field = "passwordConfirmation"',
      'token = "short1"',
      'secret_file = "/etc/app/secrets/token-1.json"',
      'token_url = "https://auth.example.test/oauth2/token1"',
      'SECRET=example-secret-value-1234',
      'password = "1111111111111111112"',
    ];
    for (const line of lines) expect(generic(line), line).toEqual([]);
    const lock = '      "integrity": "sha512-mv00Te6nmYbRp5DCwclxtt7yV/joXJPGS7nM+97GdxvuttCOfgI3K4U25zboyeX0O+myI8ERluxQe5wljMmVIw==",';
    expect(findSecrets(lock, 'package-lock.json')).toEqual([]);
    expect(findSecrets('"node_modules/js-tokens": {', 'package-lock.json')).toEqual([]);
    expect(findSecrets('      "token": "sha512-mv00Te6nmYbRp5DCwclxtt7yV/joXJPGS7nM+97GdxvuttCOfgI3K4U25",', 'package-lock.json')).toEqual([]);
  });

  it('leaves a value a token rule already claimed to that rule', () => {
    const token = ['ghp', '_', 'R8x2Lq9ZtW4vN7mK3pYc6bHs1dFg5jAe0uQi'].join('');
    expect(findSecrets(`GITHUB_TOKEN=${token}`, '.env').map((m) => m.rule)).toEqual(['github-token']);
  });

  it('keeps its thresholds: 3.5 bits per character for base64-ish values, 3.0 for hex', () => {
    expect(looksLikeSecret('abcabcabcabc1234')).toBe(false); // 2.6 bits
    expect(looksLikeSecret('Xk29fLq8Zr7mWp3N')).toBe(true); // 4 bits
    expect(looksLikeSecret('00000000000000001111')).toBe(false);
    expect(looksLikeSecret('9f86d081884c7d659a2feaa0c55ad015')).toBe(true);
  });

  it('finds a token in the middle of a minified line of any length, once', () => {
    const token = ['glpat', '-', 'x7Kp2Lm9Qr4Tv8Wz1Yb3'].join('');
    const line = `${'var a=1;'.repeat(20_000)}t="${token}";${'var b=2;'.repeat(20_000)}`;
    expect(findSecrets(line, 'bundle.min.js').map((m) => m.rule)).toEqual(['gitlab-token']);
    // On a window edge (window 4096, overlap 512): still whole in one window.
    const onEdge = `${'x'.repeat(4096 - 10)} ${token} ${'y'.repeat(5000)}`;
    expect(findSecrets(onEdge, 'a.js').map((m) => m.rule)).toEqual(['gitlab-token']);
  });
});
