import { describe, expect, it } from 'vitest';
import { verifyGitLabToken } from './gitlab-signature.js';

const body = Buffer.from('{}');
const token = 'glwt-0123456789';

describe('verifyGitLabToken', () => {
  it('accepts the token in X-Gitlab-Token or X-PlatformB-Token', () => {
    expect(verifyGitLabToken({ 'x-gitlab-token': token }, body, token)).toBe('ok');
    expect(verifyGitLabToken({ 'x-platformb-token': token }, body, token)).toBe('ok');
  });

  it('prefers X-PlatformB-Token when both are sent', () => {
    expect(verifyGitLabToken({ 'x-platformb-token': token, 'x-gitlab-token': 'wrong' }, body, token)).toBe('ok');
    expect(verifyGitLabToken({ 'x-platformb-token': 'wrong', 'x-gitlab-token': token }, body, token)).toBe('invalid');
  });

  it('skips verification without a configured token', () => {
    expect(verifyGitLabToken({}, body, null)).toBe('skipped');
    expect(verifyGitLabToken({ 'x-gitlab-token': 'anything' }, body, '')).toBe('skipped');
  });

  it('reports a missing header', () => {
    expect(verifyGitLabToken({}, body, token)).toBe('missing');
    expect(verifyGitLabToken({ 'x-gitlab-token': '' }, body, token)).toBe('missing');
  });

  it.each([
    ['different token', 'glwt-9876543210'],
    ['prefix of the token', token.slice(0, 5)],
    ['token plus suffix', `${token}x`],
    ['case-changed token', token.toUpperCase()],
    ['non-ASCII', 'glwt-01234567é9'],
  ])('rejects a %s', (_case, presented) => {
    expect(verifyGitLabToken({ 'x-gitlab-token': presented }, body, token)).toBe('invalid');
  });
});
