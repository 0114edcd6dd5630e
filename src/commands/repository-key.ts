import type { RepoConfig } from '../config/service-config.js';
import { repositoryUrlKey } from '../webhooks/repository-url.js';

/** A repository's identity in command receipts and review-vote memories: its normalised web URL. */
export function repositoryKey(repo: RepoConfig): string {
  return repositoryUrlKey(repo.url) ?? repo.url;
}
