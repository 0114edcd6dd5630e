import { Platform } from '../platform.js';
import { TrackerError } from '../tracker-client.js';

export interface AzureDevOpsRepository {
  /** `https://dev.azure.com/acme`, `https://acme.visualstudio.com`, `https://host/tfs/Collection`. */
  organizationUrl: string;
  /** Decoded names. */
  project: string;
  repository: string;
}

/**
 * Organization (or collection), project and repository from a Git repository's web URL:
 * - `https://dev.azure.com/{org}/{project}/_git/{repo}`;
 * - `https://{org}.visualstudio.com[/DefaultCollection]/{project}/_git/{repo}`;
 * - Azure DevOps Server: `https://host/[tfs/]{collection}/{project}/_git/{repo}`;
 * - without `{project}/` the repository is the project's namesake (`…/{org}/_git/{repo}`), which
 *   is how the service spells the URL of a project's first repository.
 * User info (`https://acme@dev.azure.com/…`), a query, and a path after the repository
 * (`/pullrequest/5`) are ignored.
 */
export function parseAzureDevOpsRepoUrl(repoUrl: string): AzureDevOpsRepository {
  const url = new URL(repoUrl);
  const segments = url.pathname.split('/').filter(Boolean).map(decodeSegment);
  const git = segments.findIndex((s) => s.toLowerCase() === '_git');
  const repository = segments[git + 1]?.replace(/\.git$/i, '');
  if (git < 0 || !repository) throw notARepository(url);
  const before = segments.slice(0, git);
  const collectionLength = collectionSegments(url.hostname.toLowerCase(), before);
  const rest = before.slice(collectionLength);
  if (before.length < collectionLength || rest.length > 1) throw notARepository(url);
  const collection = before.slice(0, collectionLength).map(encodeURIComponent);
  return {
    organizationUrl: [url.origin, ...collection].join('/'),
    project: rest[0] ?? repository,
    repository,
  };
}

/** How many leading path segments name the organization or collection. */
function collectionSegments(host: string, before: string[]): number {
  if (host === 'dev.azure.com') return 1;
  if (host.endsWith('.visualstudio.com')) return before[0]?.toLowerCase() === 'defaultcollection' ? 1 : 0;
  return before[0]?.toLowerCase() === 'tfs' ? 2 : 1;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function notARepository(url: URL): TrackerError {
  return new TrackerError(`not an Azure DevOps repository URL (…/{project}/_git/{repository}): ${url.origin}${url.pathname}`, Platform.AzureDevOps, null, false);
}
