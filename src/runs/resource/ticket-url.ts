import type { ProjectConfig } from '../../config/service-config.js';
import { Platform } from '../../platforms/platform.js';

/**
 * The tracker's web page of a run's ticket, from the project's configuration alone (no call to
 * the tracker): a GitHub or GitLab issue of the project's repository on that platform, an Azure
 * DevOps work item of `platform_c_trigger`'s organization and team project, a Jira issue under
 * `platform_d_trigger.site_url`. Null when the run has no ticket, the project is no longer
 * configured, or the configuration names no place for it. Only the URL's origin and path are
 * kept, so credentials written into a repository URL never reach the resource.
 */
export function ticketUrlOf(project: ProjectConfig | undefined, platform: string, ticket: string | null): string | null {
  if (!project || ticket === null || ticket === '') return null;
  switch (platform) {
    case Platform.GitHub:
    case Platform.GitLab: {
      const number = ticket.replace(/^#/, '');
      if (!/^\d+$/.test(number)) return null;
      const repo = project.repos.find((r) => r.platform === platform);
      const base = repo ? webBase(repo.url) : null;
      if (!base) return null;
      return platform === Platform.GitHub ? `${base}/issues/${number}` : `${base}/-/issues/${number}`;
    }
    case Platform.AzureDevOps: {
      const trigger = project.triggers[Platform.AzureDevOps];
      const org = trigger?.organization_url ? webBase(trigger.organization_url, false) : null;
      if (!org || !trigger?.team_project || !/^\d+$/.test(ticket)) return null;
      return `${org}/${encodeURIComponent(trigger.team_project)}/_workitems/edit/${ticket}`;
    }
    case Platform.Jira: {
      const site = project.triggers[Platform.Jira]?.site_url;
      const base = site ? webBase(site, false) : null;
      return base ? `${base}/browse/${encodeURIComponent(ticket)}` : null;
    }
    default:
      return null;
  }
}

/** `origin/path` without credentials, query, trailing slashes or (for a repository) `.git`; null for a malformed or non-http URL. */
function webBase(raw: string, repository = true): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  let path = url.pathname.replace(/\/+$/, '');
  if (repository) {
    path = path.replace(/\.git$/, '').split('/-/')[0] ?? '';
    if (!path.slice(1).includes('/')) return null;
  }
  return `${url.origin}${path}`;
}
