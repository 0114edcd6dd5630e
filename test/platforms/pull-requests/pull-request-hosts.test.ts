import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoConfig } from '../../../src/config/service-config.js';
import { AzureDevOpsPullRequestsClient } from '../../../src/platforms/azure-devops/azure-devops-pull-requests.client.js';
import { GitHubPullRequestsClient } from '../../../src/platforms/github/github-pull-requests.client.js';
import { GitLabMergeRequestsClient } from '../../../src/platforms/gitlab/gitlab-merge-requests.client.js';
import { Platform } from '../../../src/platforms/platform.js';
import { AzureDevOpsPullRequestReviewsClient } from '../../../src/platforms/azure-devops/azure-devops-pull-request-reviews.client.js';
import { GitHubPullRequestReviewsClient } from '../../../src/platforms/github/github-pull-request-reviews.client.js';
import { GitLabMergeRequestReviewsClient } from '../../../src/platforms/gitlab/gitlab-merge-request-reviews.client.js';
import { pullRequestConversationsFor, pullRequestHostFor, pullRequestReviewsFor } from '../../../src/platforms/pull-request-hosts.js';
import { TrackerError } from '../../../src/platforms/tracker-client.js';
import { AzureDevOpsStandIn } from '../../stand-ins/azure-devops-stand-in.js';
import { GitHubStandIn } from '../../stand-ins/github-stand-in.js';
import { GitLabStandIn } from '../../stand-ins/gitlab-stand-in.js';

const SECRETS = { github: 'ghp_FactorySecret0001', gitlab: 'glpat-FactorySecret0002', ado: 'adoFactorySecret0003' };

describe('pullRequestHostFor', () => {
  let github: GitHubStandIn;
  let gitlab: GitLabStandIn;
  let ado: AzureDevOpsStandIn;

  beforeAll(async () => {
    github = await new GitHubStandIn(SECRETS.github).start();
    gitlab = await new GitLabStandIn(SECRETS.gitlab).start();
    ado = await new AzureDevOpsStandIn(SECRETS.ado).start();
  });
  afterAll(() => Promise.all([github.stop(), gitlab.stop(), ado.stop()]));

  const repo = (overrides: Partial<RepoConfig>): RepoConfig => ({
    name: 'shop-web',
    platform: Platform.GitHub,
    url: 'https://github.com/acme/shop-web',
    api_url: null,
    path_prefix: '',
    auth_secret: 'secret',
    branch: null,
    ...overrides,
  });

  it('builds the host of each code platform with the repository’s secret and API URL', async () => {
    const hosts = [
      pullRequestHostFor(repo({ url: 'https://github.com/acme/shop-web', api_url: github.apiUrl, auth_secret: SECRETS.github })),
      pullRequestHostFor(repo({ name: 'billing', platform: Platform.GitLab, url: 'https://gitlab.example/fin/billing', api_url: gitlab.apiUrl, auth_secret: SECRETS.gitlab })),
      pullRequestHostFor(repo({ platform: Platform.AzureDevOps, url: ado.repositoryWebUrl, api_url: ado.organizationUrl, auth_secret: SECRETS.ado })),
    ];
    expect(hosts[0]).toBeInstanceOf(GitHubPullRequestsClient);
    expect(hosts[1]).toBeInstanceOf(GitLabMergeRequestsClient);
    expect(hosts[2]).toBeInstanceOf(AzureDevOpsPullRequestsClient);
    await expect(Promise.all(hosts.map((h) => h.defaultBranch()))).resolves.toEqual(['main', 'main', 'main']);
  });

  it('builds the review API of each code platform, which reads pull requests with the repository’s secret', async () => {
    github.openPullRequest({ head: 'feature' });
    gitlab.openPullRequest({ head: 'feature' });
    ado.openPullRequest({ head: 'feature' });
    const reviews = [
      pullRequestReviewsFor(repo({ url: 'https://github.com/acme/shop-web', api_url: github.apiUrl, auth_secret: SECRETS.github })),
      pullRequestReviewsFor(repo({ name: 'billing', platform: Platform.GitLab, url: 'https://gitlab.example/fin/billing', api_url: gitlab.apiUrl, auth_secret: SECRETS.gitlab })),
      pullRequestReviewsFor(repo({ platform: Platform.AzureDevOps, url: ado.repositoryWebUrl, api_url: ado.organizationUrl, auth_secret: SECRETS.ado })),
    ];
    expect(reviews[0]).toBeInstanceOf(GitHubPullRequestReviewsClient);
    expect(reviews[1]).toBeInstanceOf(GitLabMergeRequestReviewsClient);
    expect(reviews[2]).toBeInstanceOf(AzureDevOpsPullRequestReviewsClient);
    const states = await Promise.all(reviews.map((r) => r.read(1)));
    expect(states.map((s) => [s.head, s.sameRepository])).toEqual([['feature', true], ['feature', true], ['feature', true]]);
  });

  it('builds what conversations read on each code platform, as the repository’s account', async () => {
    const conversations = [
      pullRequestConversationsFor(repo({ url: 'https://github.com/acme/shop-web', api_url: github.apiUrl, auth_secret: SECRETS.github })),
      pullRequestConversationsFor(repo({ name: 'billing', platform: Platform.GitLab, url: 'https://gitlab.example/fin/billing', api_url: gitlab.apiUrl, auth_secret: SECRETS.gitlab })),
      pullRequestConversationsFor(repo({ platform: Platform.AzureDevOps, url: ado.repositoryWebUrl, api_url: ado.organizationUrl, auth_secret: SECRETS.ado })),
    ];
    expect(conversations.map((c) => c.platform)).toEqual([Platform.GitHub, Platform.GitLab, Platform.AzureDevOps]);
    await expect(Promise.all(conversations.map((c) => c.self()))).resolves.toEqual(['pipeline-bot', 'pipeline-bot', 'pipeline-bot@acme.example']);
    expect(conversations.map((c) => typeof c.reviewerState)).toEqual(['undefined', 'function', 'undefined']);
  });

  it('pullRequestReviewsFor and pullRequestConversationsFor refuse what pullRequestHostFor refuses', () => {
    for (const config of [repo({ auth_secret: null }), repo({ platform: Platform.Jira, url: 'https://acme.atlassian.net' }), repo({ platform: Platform.GitLab, url: 'https://gitlab.example/billing' })]) {
      expect(() => pullRequestReviewsFor(config)).toThrow(TrackerError);
      expect(() => pullRequestReviewsFor(config)).toThrow(/repository shop-web/);
      expect(() => pullRequestConversationsFor(config)).toThrow(TrackerError);
      expect(() => pullRequestConversationsFor(config)).toThrow(/repository shop-web/);
    }
  });

  it('names the repository when it has no auth_secret, is on Jira, or has a URL the host cannot read', () => {
    const cases: [RepoConfig, string][] = [
      [repo({ auth_secret: null }), 'auth_secret is not set'],
      [repo({ platform: Platform.Jira, url: 'https://acme.atlassian.net' }), 'Jira hosts no code'],
      [repo({ platform: Platform.AzureDevOps, url: 'https://dev.azure.com/acme/Shop' }), 'not an Azure DevOps repository URL'],
      [repo({ platform: Platform.GitLab, url: 'https://gitlab.example/billing' }), 'not a project URL'],
    ];
    for (const [config, reason] of cases) {
      let thrown: unknown;
      try {
        pullRequestHostFor(config);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(TrackerError);
      expect(thrown).toMatchObject({ status: null, retryable: false });
      expect((thrown as TrackerError).message).toContain('repository shop-web');
      expect((thrown as TrackerError).message).toContain(reason);
    }
  });
});
