import { azureDevOpsIngress } from './azure-devops/azure-devops-ingress.js';
import { githubIngress } from './github/github-ingress.js';
import { gitlabIngress } from './gitlab/gitlab-ingress.js';
import { jiraIngress } from './jira/jira-ingress.js';
import type { PlatformIngress } from './platform-ingress.js';
import type { Platform } from './platform.js';

/** Every platform the receiver serves, by id. */
export const INGRESS: Readonly<Record<Platform, PlatformIngress>> = Object.fromEntries(
  [githubIngress, gitlabIngress, azureDevOpsIngress, jiraIngress].map((i) => [i.platform, i]),
) as Record<Platform, PlatformIngress>;
