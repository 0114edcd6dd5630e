import { describe, expect, it } from 'vitest';
import { verifyAzureDevOpsBasicAuth } from './azure-devops-signature.js';

const body = Buffer.from('{}');
const basic = (credential: string) => `Basic ${Buffer.from(credential, 'utf8').toString('base64')}`;

describe('verifyAzureDevOpsBasicAuth', () => {
  describe('configured with the password alone', () => {
    const secret = 's3cret-pass';

    it('accepts any user name with that password', () => {
      expect(verifyAzureDevOpsBasicAuth({ authorization: basic('hooks:s3cret-pass') }, body, secret)).toBe('ok');
      expect(verifyAzureDevOpsBasicAuth({ authorization: basic(':s3cret-pass') }, body, secret)).toBe('ok');
      expect(verifyAzureDevOpsBasicAuth({ authorization: basic('anyone:s3cret-pass') }, body, secret)).toBe('ok');
    });

    it('treats the scheme name case-insensitively', () => {
      const value = basic('hooks:s3cret-pass').replace('Basic', 'basic');
      expect(verifyAzureDevOpsBasicAuth({ authorization: value }, body, secret)).toBe('ok');
    });

    it('rejects another password, a missing password and a password in the user slot', () => {
      expect(verifyAzureDevOpsBasicAuth({ authorization: basic('hooks:other') }, body, secret)).toBe('invalid');
      expect(verifyAzureDevOpsBasicAuth({ authorization: basic('hooks:') }, body, secret)).toBe('invalid');
      expect(verifyAzureDevOpsBasicAuth({ authorization: basic('s3cret-pass') }, body, secret)).toBe('invalid');
      expect(verifyAzureDevOpsBasicAuth({ authorization: basic('s3cret-pass:x') }, body, secret)).toBe('invalid');
    });
  });

  describe('configured as user:password', () => {
    const secret = 'hooks:s3cret-pass';

    it('accepts exactly that user and password', () => {
      expect(verifyAzureDevOpsBasicAuth({ authorization: basic('hooks:s3cret-pass') }, body, secret)).toBe('ok');
    });

    it('rejects the right password under another user name', () => {
      expect(verifyAzureDevOpsBasicAuth({ authorization: basic('intruder:s3cret-pass') }, body, secret)).toBe('invalid');
    });
  });

  it('keeps colons inside the password', () => {
    expect(verifyAzureDevOpsBasicAuth({ authorization: basic('u:pa:ss') }, body, 'pa:ss')).toBe('ok');
  });

  it('skips verification when PLATFORM_C_WEBHOOK_SECRET is unset', () => {
    expect(verifyAzureDevOpsBasicAuth({}, body, null)).toBe('skipped');
    expect(verifyAzureDevOpsBasicAuth({ authorization: basic('x:y') }, body, '')).toBe('skipped');
  });

  it('reports a missing Authorization header', () => {
    expect(verifyAzureDevOpsBasicAuth({}, body, 'pw')).toBe('missing');
  });

  it.each([
    ['a bearer token', 'Bearer abc.def.ghi'],
    ['no credentials after the scheme', 'Basic'],
    ['non-base64 credentials', 'Basic !!!not-base64!!!'],
    ['badly padded base64', 'Basic dTpwd'],
    ['the raw credential unencoded', 'Basic u:pw'],
  ])('rejects %s as invalid', (_case, authorization) => {
    expect(verifyAzureDevOpsBasicAuth({ authorization }, body, 'pw')).toBe('invalid');
  });
});
