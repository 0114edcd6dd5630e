import { describe, expect, it } from 'vitest';
import { MAX_REPOSITORY_URL_LENGTH, repositoryUrlKey, sameRepositoryUrl } from './repository-url.js';

describe('repositoryUrlKey', () => {
  it('refuses a value longer than any repository URL (payload values are unverified when routed)', () => {
    expect(repositoryUrlKey(`https://github.com/${'/'.repeat(100_000)}a`)).toBeNull();
    expect(repositoryUrlKey(`https://github.com/${'a'.repeat(MAX_REPOSITORY_URL_LENGTH)}`)).toBeNull();
  });

  it('strips any run of trailing slashes, before and after .git', () => {
    expect(repositoryUrlKey(`https://github.com/acme/shop-web.git${'/'.repeat(1500)}`)).toBe('github.com/acme/shop-web');
    expect(repositoryUrlKey(`https://github.com/acme/shop-web${'/'.repeat(700)}.git${'/'.repeat(700)}`)).toBe('github.com/acme/shop-web');
  });

  it('ignores case, scheme, trailing slash and .git', () => {
    const key = 'github.com/acme/shop-web';
    for (const url of [
      'https://github.com/acme/shop-web',
      'https://GitHub.com/Acme/Shop-Web',
      'https://github.com/acme/shop-web/',
      'https://github.com/acme/shop-web.git',
      'https://github.com/acme/shop-web.git/',
      'http://github.com/acme/shop-web',
      'https://github.com:443/acme/shop-web',
      'github.com/acme/shop-web',
      ' https://github.com/acme/shop-web?tab=readme#top ',
      'git@github.com:acme/shop-web.git',
      'ssh://git@github.com/acme/shop-web.git',
    ]) {
      expect(repositoryUrlKey(url), url).toBe(key);
    }
  });

  it('drops user info (Azure DevOps remote URLs) and keeps non-default ports', () => {
    expect(repositoryUrlKey('https://fabrikam@dev.azure.com/fabrikam/DefaultCollection/_git/Fabrikam')).toBe(
      'dev.azure.com/fabrikam/defaultcollection/_git/fabrikam',
    );
    expect(repositoryUrlKey('https://gitlab.example:8443/fin/billing')).toBe('gitlab.example:8443/fin/billing');
  });

  it('decodes percent-encoded paths (Azure DevOps project names with spaces)', () => {
    expect(sameRepositoryUrl('https://dev.azure.com/org/My%20Project/_git/repo', 'https://dev.azure.com/org/my project/_git/repo')).toBe(true);
  });

  it('returns null for blank or unparseable values', () => {
    expect(repositoryUrlKey('')).toBeNull();
    expect(repositoryUrlKey('   ')).toBeNull();
    expect(repositoryUrlKey('https://')).toBeNull();
  });

  it('distinguishes different repositories, hosts and nested groups', () => {
    expect(sameRepositoryUrl('https://github.com/acme/shop', 'https://github.com/acme/shop-web')).toBe(false);
    expect(sameRepositoryUrl('https://github.com/acme/shop', 'https://gitlab.com/acme/shop')).toBe(false);
    expect(sameRepositoryUrl('https://gitlab.com/acme/sub/shop', 'https://gitlab.com/acme/shop')).toBe(false);
    expect(sameRepositoryUrl('', '')).toBe(false);
  });
});
