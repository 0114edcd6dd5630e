import { decryptSecret } from './secret-cipher.js';

/** SERVICE_SECRETS_KEY: 32 random bytes in base64 (standard or URL-safe), e.g. `openssl rand -base64 32`. */
export const SECRETS_KEY_VARIABLE = 'SERVICE_SECRETS_KEY';
const KEY_BYTES = 32;

export type SecretsKey = { state: 'ok'; key: Buffer } | { state: 'missing' } | { state: 'invalid'; reason: string };

/** A key that is not exactly 32 bytes of base64 is refused whole: a short key would weaken AES-256 silently. */
export function parseSecretsKey(raw: string | null | undefined): SecretsKey {
  const text = raw?.trim() ?? '';
  if (text === '') return { state: 'missing' };
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) return { state: 'invalid', reason: `${SECRETS_KEY_VARIABLE} must be base64 (e.g. openssl rand -base64 32)` };
  const key = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (key.length !== KEY_BYTES) {
    return { state: 'invalid', reason: `${SECRETS_KEY_VARIABLE} must decode to ${KEY_BYTES} bytes, not ${key.length} (e.g. openssl rand -base64 32)` };
  }
  return { state: 'ok', key };
}

/** Stored secret rows opened with `key`: the readable values by name, and the names that cannot be read (no key, a wrong key). */
export function openSecrets(key: SecretsKey, rows: readonly { name: string; value: Buffer }[]): { secrets: Record<string, string>; unreadable: string[] } {
  const secrets: Record<string, string> = Object.create(null);
  const unreadable: string[] = [];
  for (const row of rows) {
    const value = key.state === 'ok' ? decryptSecret(key.key, row.name, row.value) : null;
    if (value === null) unreadable.push(row.name);
    else secrets[row.name] = value;
  }
  return { secrets, unreadable };
}
