import { AZURE_DEVOPS_TRAITS } from './azure-devops/azure-devops-traits.js';
import { GITHUB_TRAITS } from './github/github-traits.js';
import { GITLAB_TRAITS } from './gitlab/gitlab-traits.js';
import { JIRA_TRAITS } from './jira/jira-traits.js';
import { Platform } from './platform.js';
import type { PlatformTraits } from './platform-traits.js';

/** Each platform's traits (its folder's `*-traits.ts`). */
export const PLATFORM_TRAITS: Readonly<Record<Platform, PlatformTraits>> = {
  [Platform.GitHub]: GITHUB_TRAITS,
  [Platform.GitLab]: GITLAB_TRAITS,
  [Platform.AzureDevOps]: AZURE_DEVOPS_TRAITS,
  [Platform.Jira]: JIRA_TRAITS,
};

/** The traits of `platform` (GitHub's for a name the service does not know, as the callers did before). */
export function traitsOf(platform: string): PlatformTraits {
  return PLATFORM_TRAITS[platform as Platform] ?? GITHUB_TRAITS;
}
