import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decryptSecret, encryptSecret } from './secret-cipher.js';
import { parseSecretsKey } from './secrets-key.js';

describe('secret cipher', () => {
  const key = randomBytes(32);

  it('round-trips, and never stores the value in clear', () => {
    const sealed = encryptSecret(key, 'REPO_TOKEN', 'ghp_value');
    expect(sealed.includes(Buffer.from('ghp_value'))).toBe(false);
    expect(decryptSecret(key, 'REPO_TOKEN', sealed)).toBe('ghp_value');
  });

  it('refuses another key, another name, or a tampered value', () => {
    const sealed = encryptSecret(key, 'A', 'value');
    expect(decryptSecret(randomBytes(32), 'A', sealed)).toBeNull();
    expect(decryptSecret(key, 'B', sealed)).toBeNull();
    sealed[sealed.length - 1] ^= 1;
    expect(decryptSecret(key, 'A', sealed)).toBeNull();
  });
});

describe('SERVICE_SECRETS_KEY', () => {
  it('wants 32 bytes of base64', () => {
    expect(parseSecretsKey(undefined)).toEqual({ state: 'missing' });
    expect(parseSecretsKey(randomBytes(32).toString('base64')).state).toBe('ok');
    expect(parseSecretsKey(randomBytes(32).toString('base64url')).state).toBe('ok');
    expect(parseSecretsKey(randomBytes(16).toString('base64'))).toMatchObject({ state: 'invalid', reason: expect.stringContaining('32 bytes, not 16') });
    expect(parseSecretsKey('not base64 at all!').state).toBe('invalid');
  });
});
