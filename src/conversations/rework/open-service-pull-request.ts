import type { RepoConfig } from '../../config/service-config.js';
import type { TrackerHttpOptions } from '../../platforms/http/tracker-http.js';
import { pullRequestHostFor, pullRequestReviewsFor } from '../../platforms/pull-request-hosts.js';

export interface OpenPullRequest {
  number: number;
  url: string;
}

/**
 * The open pull request from the work branch in `repo`, asked of the host. The numbers the
 * ticket's runs recorded (newest first) are tried first, whatever base they target, since the
 * table keeps a row `open` after the host merged or closed it; then the host's own search from
 * the branch into the repository's base branch. A fork's pull request is never the service's.
 */
export async function openServicePullRequest(repo: RepoConfig, branch: string, recorded: readonly number[], http?: TrackerHttpOptions): Promise<OpenPullRequest | null> {
  if (recorded.length > 0) {
    const reviews = pullRequestReviewsFor(repo, http);
    for (const number of recorded) {
      const pr = await reviews.read(number);
      if (pr.state === 'open' && pr.head === branch && pr.sameRepository) return { number, url: pr.url };
    }
  }
  const host = pullRequestHostFor(repo, http);
  const found = await host.findOpen(branch, repo.branch ?? (await host.defaultBranch()));
  return found ? { number: found.number, url: found.url } : null;
}
