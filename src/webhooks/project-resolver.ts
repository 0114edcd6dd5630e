import type { ProjectConfig, ServiceConfig } from '../config/service-config.js';
import type { RoutableEvent } from '../platforms/inbound-event.js';
import type { Platform } from '../platforms/platform.js';
import { platformOf } from '../platforms/platform-registry.js';
import { repositoryUrlKey } from './repository-url.js';

/**
 * The project an event belongs to (contract, "Platforms" and the `service.yml` example), by the
 * routing its platform's descriptor declares:
 *
 * - platform A/B: the project that declares the event's repository under `repos[].url`
 *   (compared with `repositoryUrlKey`: scheme-, case-, trailing-slash- and `.git`-insensitive);
 * - platform C: the project whose `platform_c_trigger.team_project` equals the work item's (or
 *   pull request repository's) team project; Azure DevOps project names are case-insensitive,
 *   so the comparison is too;
 * - platform D: the project whose `platform_d_trigger.project_key` equals the project
 *   key (case-insensitive; Jira keys are upper case).
 *
 * When several projects match, the first in configuration order wins. Null when none does.
 */
export function resolveProject(config: Pick<ServiceConfig, 'projects'>, event: RoutableEvent): ProjectConfig | null {
  const projects = Object.values(config.projects);
  const routing = platformOf(event.platform)?.routing;
  if (!routing) return null;
  if (routing.by === 'repository-url') return byRepositoryUrl(projects, event.route.repositoryUrl);
  return byTriggerField(projects, event.platform, routing.field, event.route[routing.route]);
}

function byRepositoryUrl(projects: readonly ProjectConfig[], url: string | undefined): ProjectConfig | null {
  const key = url === undefined ? null : repositoryUrlKey(url);
  if (key === null) return null;
  return projects.find((project) => project.repos.some((repo) => repositoryUrlKey(repo.url) === key)) ?? null;
}

function byTriggerField(
  projects: readonly ProjectConfig[],
  platform: Platform,
  field: 'team_project' | 'project_key',
  value: string | undefined,
): ProjectConfig | null {
  const wanted = value?.trim().toLowerCase();
  if (wanted === undefined || wanted === '') return null;
  return projects.find((project) => project.triggers[platform]?.[field]?.trim().toLowerCase() === wanted) ?? null;
}
