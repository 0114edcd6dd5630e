import type { ProjectConfig } from '../../config/service-config.js';
import { Platform } from '../platform.js';
import { webBase } from '../web-base.js';

/** A work item of the trigger block's organization and team project: `<org>/<project>/_workitems/edit/<id>`. */
export function azureDevOpsTicketUrl(project: ProjectConfig, ticket: string): string | null {
  const trigger = project.triggers[Platform.AzureDevOps];
  const org = trigger?.organization_url ? webBase(trigger.organization_url, false) : null;
  if (!org || !trigger?.team_project || !/^\d+$/.test(ticket)) return null;
  return `${org}/${encodeURIComponent(trigger.team_project)}/_workitems/edit/${ticket}`;
}
