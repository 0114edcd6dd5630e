import type { ProjectConfig } from '../config/service-config.js';
import { azureDevOpsTicketUrl } from './azure-devops/azure-devops-ticket-url.js';
import { gitHubTicketUrl } from './github/github-ticket-url.js';
import { gitLabTicketUrl } from './gitlab/gitlab-ticket-url.js';
import { jiraTicketUrl } from './jira/jira-ticket-url.js';
import { Platform } from './platform.js';

/** Each tracker's ticket page (its folder's `*-ticket-url.ts`), by platform. */
const TICKET_URLS: Readonly<Record<Platform, (project: ProjectConfig, ticket: string) => string | null>> = {
  [Platform.GitHub]: gitHubTicketUrl,
  [Platform.GitLab]: gitLabTicketUrl,
  [Platform.AzureDevOps]: azureDevOpsTicketUrl,
  [Platform.Jira]: jiraTicketUrl,
};

/**
 * The tracker's web page of a run's ticket, from the project's configuration alone (no call to
 * the tracker). Null when the run has no ticket, the project is no longer configured, the
 * platform is unknown, or the configuration names no place for it. Only the URL's origin and
 * path are kept, so credentials written into a repository URL never reach the resource.
 */
export function ticketUrlOf(project: ProjectConfig | undefined, platform: string, ticket: string | null): string | null {
  if (!project || ticket === null || ticket === '') return null;
  return TICKET_URLS[platform as Platform]?.(project, ticket) ?? null;
}
