import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyGitHubSignature } from './github-signature.js';

const secret = "It's a Secret to Everybody";
// GitHub's documented test vector (docs.github.com, "Validating webhook deliveries").
const documentedBody = Buffer.from('Hello, World!');
const documentedSignature = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';

const body = Buffer.from('{"action":"labeled","issue":{"number":1}}');
const sign = (bytes: Buffer, key = secret) => `sha256=${createHmac('sha256', key).update(bytes).digest('hex')}`;

describe('verifyGitHubSignature', () => {
  it('accepts the documented test vector', () => {
    expect(verifyGitHubSignature({ 'x-hub-signature-256': documentedSignature }, documentedBody, secret)).toBe('ok');
  });

  it('accepts an HMAC of the raw bytes, upper-case hex included', () => {
    expect(verifyGitHubSignature({ 'x-hub-signature-256': sign(body) }, body, secret)).toBe('ok');
    expect(verifyGitHubSignature({ 'x-hub-signature-256': sign(body).toUpperCase() }, body, secret)).toBe('ok');
  });

  it('skips verification when no secret is configured (null or empty)', () => {
    expect(verifyGitHubSignature({}, body, null)).toBe('skipped');
    expect(verifyGitHubSignature({ 'x-hub-signature-256': 'sha256=00' }, body, '')).toBe('skipped');
  });

  it('reports a missing header (absent or blank) when a secret is configured', () => {
    expect(verifyGitHubSignature({}, body, secret)).toBe('missing');
    expect(verifyGitHubSignature({ 'x-hub-signature-256': '  ' }, body, secret)).toBe('missing');
  });

  it('does not accept the legacy SHA-1 header in place of the SHA-256 one', () => {
    const sha1 = `sha1=${createHmac('sha1', secret).update(body).digest('hex')}`;
    expect(verifyGitHubSignature({ 'x-hub-signature': sha1 }, body, secret)).toBe('missing');
  });

  it.each([
    ['wrong secret', sign(body, 'another secret')],
    ['other body', sign(Buffer.from('{}'))],
    ['truncated digest (wrong length)', sign(body).slice(0, 40)],
    ['extended digest (wrong length)', `${sign(body)}00`],
    ['non-hex digest', `sha256=${'z'.repeat(64)}`],
    ['missing prefix', sign(body).slice('sha256='.length)],
    ['sha1 prefix', sign(body).replace('sha256=', 'sha1=')],
    ['empty digest', 'sha256='],
  ])('rejects %s as invalid', (_case, signature) => {
    expect(verifyGitHubSignature({ 'x-hub-signature-256': signature }, body, secret)).toBe('invalid');
  });

  it('checks the raw bytes, not a re-serialised body', () => {
    const spaced = Buffer.from('{ "action": "labeled" }');
    const compact = Buffer.from(JSON.stringify(JSON.parse(spaced.toString())));
    expect(verifyGitHubSignature({ 'x-hub-signature-256': sign(spaced) }, compact, secret)).toBe('invalid');
  });

  it('uses the first value when the header is repeated', () => {
    expect(verifyGitHubSignature({ 'x-hub-signature-256': [sign(body), 'sha256=00'] }, body, secret)).toBe('ok');
  });
});
