import type { ProjectConfig } from '../../config/service-config.js';
import { Platform } from '../platform.js';
import { webBase } from '../web-base.js';

/** An issue of the project's GitLab repository: `<repo>/-/issues/<n>`. */
export function gitLabTicketUrl(project: ProjectConfig, ticket: string): string | null {
  const number = ticket.replace(/^#/, '');
  const repo = project.repos.find((r) => r.platform === Platform.GitLab);
  const base = repo && /^\d+$/.test(number) ? webBase(repo.url) : null;
  return base ? `${base}/-/issues/${number}` : null;
}
