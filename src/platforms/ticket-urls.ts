import type { ProjectConfig } from '../config/service-config.js';
import { platformOf } from './platform-registry.js';

/**
 * The tracker's web page of a run's ticket, from the project's configuration alone (no call to
 * the tracker). Null when the run has no ticket, the project is no longer configured, the
 * platform is unknown, or the configuration names no place for it. Only the URL's origin and
 * path are kept, so credentials written into a repository URL never reach the resource.
 */
export function ticketUrlOf(project: ProjectConfig | undefined, platform: string, ticket: string | null): string | null {
  if (!project || ticket === null || ticket === '') return null;
  return platformOf(platform)?.ticketUrl(project, ticket) ?? null;
}
