import type { RepoConfig } from '../config/service-config.js';
import type { Platform } from './platform.js';
import { TrackerError } from './tracker-client.js';

/**
 * Errors of the pull-request hosts name the repository (a run may publish to several), keep the
 * HTTP layer's status and retry hints, and say what the host answered. Credentials never reach
 * them: TrackerHttp redacts its messages, and the messages built here quote only response bodies.
 */

/** `platform-a: repository shop-web: …` whatever the error said after its platform prefix. */
export function namingRepository(repository: string, err: unknown): unknown {
  if (!(err instanceof TrackerError)) return err;
  const label = `repository ${repository}: `;
  if (err.message.includes(label)) return err;
  const detail = err.message.startsWith(`${err.platform}: `) ? err.message.slice(err.platform.length + 2) : err.message;
  return new TrackerError(`${err.platform}: ${label}${detail}`, err.platform, err.status, err.retryable, err.retryAfterMs);
}

/** Runs one host operation; a TrackerError out of it names the repository. */
export async function inRepository<T>(repository: string, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (err) {
    throw namingRepository(repository, err);
  }
}

/** The host refused what we asked (a missing branch, nothing to merge, …): retrying will not help. */
export function refusal(platform: Platform, repository: string, message: string, status: number | null, retryable = false): TrackerError {
  return new TrackerError(`${platform}: repository ${repository}: ${message}`, platform, status, retryable);
}

/** A host's own words for an error message: one line, clipped. */
export function quoteHost(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/**
 * A host client of a configured repository, built with its `auth_secret`: refused without one,
 * and a URL the client cannot read is refused naming the repository.
 */
export function clientForRepository<T>(platform: Platform, repo: RepoConfig, build: (token: string) => T): T {
  if (!repo.auth_secret) throw refusal(platform, repo.name, 'auth_secret is not set', null);
  try {
    return build(repo.auth_secret);
  } catch (err) {
    throw namingRepository(repo.name, err);
  }
}
