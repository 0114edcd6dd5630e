import type { RepoConfig } from '../config/service-config.js';
import { AzureDevOpsWriteAccessClient } from './azure-devops/azure-devops-write-access.client.js';
import { GitLabWriteAccessClient } from './gitlab/gitlab-write-access.client.js';
import type { TrackerHttpOptions } from './http/tracker-http.js';
import { Platform } from './platform.js';
import { refusal } from './pull-request-errors.js';
import type { WriteAccessLookup } from './write-access-lookup.js';

/**
 * The write-access lookup of a repository whose host is asked over its API (GitLab, Azure
 * DevOps); GitHub needs none (the payload's author_association decides). Throws a non-retryable
 * TrackerError naming the repository without `auth_secret`, with a URL the host cannot read, or
 * on another platform.
 */
export function writeAccessLookupFor(repo: RepoConfig, http?: TrackerHttpOptions): WriteAccessLookup {
  switch (repo.platform) {
    case Platform.GitLab:
      return GitLabWriteAccessClient.fromConfig(repo, http);
    case Platform.AzureDevOps:
      return AzureDevOpsWriteAccessClient.fromConfig(repo, http);
    default:
      throw refusal(repo.platform, repo.name, 'write access is looked up only on platform-b (GitLab) and platform-c (Azure DevOps)', null);
  }
}
