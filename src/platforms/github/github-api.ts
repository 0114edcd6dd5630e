import { Platform } from '../platform.js';
import { TrackerError } from '../tracker-client.js';

/**
 * What every GitHub client shares: the REST API's headers and where a repository's API is. A leaf:
 * the tracker, pull-request and poll clients import it, never each other's internals for it.
 */
export const API_HEADERS = { Accept: 'application/vnd.github+json', 'X-GitHub-Api-Version': '2022-11-28' };

/** Owner, repository and default API base from a repository URL. */
export function parseGitHubRepoUrl(repoUrl: string): { owner: string; repo: string; apiBase: string } {
  const url = new URL(repoUrl);
  const [owner, rawRepo] = url.pathname.replace(/^\/+|\/+$/g, '').split('/');
  const repo = rawRepo?.replace(/\.git$/, '');
  if (!owner || !repo) throw new TrackerError(`not a repository URL: ${url.origin}${url.pathname}`, Platform.GitHub, null, false);
  const apiBase = url.hostname === 'github.com' || url.hostname === 'www.github.com' ? 'https://api.github.com' : `${url.origin}/api/v3`;
  return { owner, repo, apiBase };
}
