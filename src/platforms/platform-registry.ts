import { AZURE_DEVOPS_PLATFORM } from './azure-devops/azure-devops-platform.js';
import { GITHUB_PLATFORM } from './github/github-platform.js';
import { GITLAB_PLATFORM } from './gitlab/gitlab-platform.js';
import { JIRA_PLATFORM } from './jira/jira-platform.js';
import { ALL_PLATFORMS, type Platform } from './platform.js';
import type { PlatformDescriptor } from './platform-descriptor.js';

/**
 * The platforms the service serves: the one place that lists them. Everything outside
 * `src/platforms/` asks here (or through the small views beside it: `traitsOf`,
 * `commentMarkupFor`, `ticketUrlOf`, `pullRequestHostFor` …) and never compares a name.
 */
const BUILT_IN_PLATFORMS: readonly PlatformDescriptor[] = [GITHUB_PLATFORM, GITLAB_PLATFORM, AZURE_DEVOPS_PLATFORM, JIRA_PLATFORM];

const descriptors = new Map<string, PlatformDescriptor>();

/** The ids of the platforms that host code (a repository's `platform`): a live list, like ALL_PLATFORMS. */
export const CODE_HOST_PLATFORMS: readonly Platform[] = [];

const liveIds = ALL_PLATFORMS as Platform[];
const liveCodeHosts = CODE_HOST_PLATFORMS as Platform[];

function add(descriptor: PlatformDescriptor): void {
  descriptors.set(descriptor.id, descriptor);
  if (!liveIds.includes(descriptor.id)) liveIds.push(descriptor.id);
  if (descriptor.codeHost && !liveCodeHosts.includes(descriptor.id)) liveCodeHosts.push(descriptor.id);
}

for (const descriptor of BUILT_IN_PLATFORMS) add(descriptor);

/** The descriptor of `id`, null for a name the service does not serve. */
export function platformOf(id: string): PlatformDescriptor | null {
  return descriptors.get(id) ?? null;
}

/** Every platform served, built-ins first. */
export function registeredPlatforms(): readonly PlatformDescriptor[] {
  return [...descriptors.values()];
}

/**
 * Serves one more platform (a test's, or one loaded from outside the built-ins); answers the
 * function that withdraws it. The configuration's shape reads the list when it is loaded, so a
 * platform configured in `service.yml` registers before the server's modules load.
 */
export function registerPlatform(descriptor: PlatformDescriptor): () => void {
  if (descriptors.has(descriptor.id)) throw new Error(`platform ${descriptor.id} is registered already`);
  add(descriptor);
  return () => {
    descriptors.delete(descriptor.id);
    for (const list of [liveIds, liveCodeHosts]) {
      const at = list.indexOf(descriptor.id);
      if (at >= 0) list.splice(at, 1);
    }
  };
}
