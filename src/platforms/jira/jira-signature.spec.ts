import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyJiraSignature } from './jira-signature.js';

const secret = 'project-bill-secret';
const body = Buffer.from('{"webhookEvent":"jira:issue_updated","issue":{"key":"BILL-1"}}');
const sign = (bytes: Buffer, key = secret) => `sha256=${createHmac('sha256', key).update(bytes).digest('hex')}`;

describe('verifyJiraSignature', () => {
  it('accepts X-Hub-Signature: sha256=<hex> with the project secret', () => {
    expect(verifyJiraSignature({ 'x-hub-signature': sign(body) }, body, secret)).toBe('ok');
  });

  it('skips verification when the project has no secret', () => {
    expect(verifyJiraSignature({}, body, null)).toBe('skipped');
    expect(verifyJiraSignature({ 'x-hub-signature': 'sha256=00' }, body, '')).toBe('skipped');
  });

  it('requires the header once the project carries a secret', () => {
    expect(verifyJiraSignature({}, body, secret)).toBe('missing');
  });

  it('does not read GitHub’s SHA-256 header name', () => {
    expect(verifyJiraSignature({ 'x-hub-signature-256': sign(body) }, body, secret)).toBe('missing');
  });

  it.each([
    ['another project’s secret', sign(body, 'other-project')],
    ['wrong length', `${sign(body)}ab`],
    ['non-hex', `sha256=${'g'.repeat(64)}`],
    ['no algorithm prefix', sign(body).slice(7)],
  ])('rejects %s', (_case, signature) => {
    expect(verifyJiraSignature({ 'x-hub-signature': signature }, body, secret)).toBe('invalid');
  });
});
