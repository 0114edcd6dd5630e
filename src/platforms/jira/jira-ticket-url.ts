import type { ProjectConfig } from '../../config/service-config.js';
import { Platform } from '../platform.js';
import { webBase } from '../web-base.js';

/** An issue under the trigger block's `site_url`: `<site>/browse/<KEY-n>`. */
export function jiraTicketUrl(project: ProjectConfig, ticket: string): string | null {
  const site = project.triggers[Platform.Jira]?.site_url;
  const base = site ? webBase(site, false) : null;
  return base ? `${base}/browse/${encodeURIComponent(ticket)}` : null;
}
