import { describe, expect, it } from 'vitest';
import { TrackerError } from '../tracker-client.js';
import { parseAzureDevOpsRepoUrl } from './azure-devops-repo-url.js';

describe('parseAzureDevOpsRepoUrl', () => {
  it('reads dev.azure.com URLs, with user info, encoded names and a trailing page', () => {
    expect(parseAzureDevOpsRepoUrl('https://dev.azure.com/acme/Shop/_git/shop-web')).toEqual({ organizationUrl: 'https://dev.azure.com/acme', project: 'Shop', repository: 'shop-web' });
    expect(parseAzureDevOpsRepoUrl('https://acme@dev.azure.com/acme/My%20Shop/_git/web%20app/pullrequest/5?_a=files')).toEqual({
      organizationUrl: 'https://dev.azure.com/acme',
      project: 'My Shop',
      repository: 'web app',
    });
  });

  it('reads visualstudio.com URLs, with and without DefaultCollection', () => {
    expect(parseAzureDevOpsRepoUrl('https://acme.visualstudio.com/Shop/_git/shop-web')).toEqual({ organizationUrl: 'https://acme.visualstudio.com', project: 'Shop', repository: 'shop-web' });
    expect(parseAzureDevOpsRepoUrl('https://acme.visualstudio.com/DefaultCollection/Shop/_git/shop-web').organizationUrl).toBe('https://acme.visualstudio.com/DefaultCollection');
  });

  it('reads Azure DevOps Server collections, with or without /tfs', () => {
    expect(parseAzureDevOpsRepoUrl('https://tfs.acme.example/tfs/Main/Shop/_git/shop-web')).toEqual({ organizationUrl: 'https://tfs.acme.example/tfs/Main', project: 'Shop', repository: 'shop-web' });
    expect(parseAzureDevOpsRepoUrl('https://ado.acme.example:8443/Main/Shop/_git/shop-web').organizationUrl).toBe('https://ado.acme.example:8443/Main');
  });

  it('takes the project from the repository when the URL names none (a project’s namesake repository)', () => {
    expect(parseAzureDevOpsRepoUrl('https://dev.azure.com/acme/_git/Shop')).toEqual({ organizationUrl: 'https://dev.azure.com/acme', project: 'Shop', repository: 'Shop' });
  });

  it('refuses URLs that name no repository', () => {
    for (const url of ['https://dev.azure.com/acme/Shop', 'https://dev.azure.com/_git/x', 'https://dev.azure.com/acme/a/b/_git/x', 'https://dev.azure.com/acme/Shop/_git/']) {
      expect(() => parseAzureDevOpsRepoUrl(url)).toThrow(TrackerError);
    }
  });
});
