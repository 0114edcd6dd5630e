import type { RepoConfig } from '../config/service-config.js';
import type { TrackerHttpOptions } from './http/tracker-http.js';
import { platformOf, registeredPlatforms } from './platform-registry.js';
import { refusal } from './pull-request-errors.js';
import type { WriteAccessLookup } from './write-access-lookup.js';

/**
 * The write-access lookup of a repository whose host is asked over its API (GitLab, Azure
 * DevOps); GitHub needs none (the payload's author_association decides). Throws a non-retryable
 * TrackerError naming the repository without `auth_secret`, with a URL the host cannot read, or
 * on another platform.
 */
export function writeAccessLookupFor(repo: RepoConfig, http?: TrackerHttpOptions): WriteAccessLookup {
  const access = platformOf(repo.platform)?.codeHost?.writeAccess;
  if (access?.from === 'host') return access.lookup(repo, http);
  const asking = registeredPlatforms().filter((d) => d.codeHost?.writeAccess.from === 'host').map((d) => `${d.id} (${d.product})`);
  throw refusal(repo.platform, repo.name, `write access is looked up only on ${asking.join(' and ')}`, null);
}
