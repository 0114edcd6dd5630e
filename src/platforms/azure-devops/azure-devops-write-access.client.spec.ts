import { describe, expect, it } from 'vitest';
import { identityBaseOf } from './azure-devops-write-access.client.js';

describe('identityBaseOf', () => {
  it('sends the cloud’s identity reads to its vssps host', () => {
    expect(identityBaseOf('https://dev.azure.com/acme')).toBe('https://vssps.dev.azure.com/acme');
    expect(identityBaseOf('https://dev.azure.com/acme/')).toBe('https://vssps.dev.azure.com/acme');
    expect(identityBaseOf('https://acme.visualstudio.com')).toBe('https://acme.vssps.visualstudio.com');
    expect(identityBaseOf('https://acme.visualstudio.com/DefaultCollection')).toBe('https://acme.vssps.visualstudio.com');
  });

  it('keeps a server’s collection URL (Azure DevOps Server serves identities there)', () => {
    expect(identityBaseOf('https://tfs.corp.example/tfs/DefaultCollection/')).toBe('https://tfs.corp.example/tfs/DefaultCollection');
    expect(identityBaseOf('http://127.0.0.1:4100/acme')).toBe('http://127.0.0.1:4100/acme');
  });
});
