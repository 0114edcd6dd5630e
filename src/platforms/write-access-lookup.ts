import type { Platform } from './platform.js';

/** Whom a host is asked about: the payload's handle and stable id (either may be missing). */
export interface AuthorRef {
  login: string | null;
  id: string | null;
}

/**
 * What the host said: a definitive answer, worth remembering. A lookup that could not be made
 * (network, timeout, 5xx, a refused token) throws instead: it says nothing about the author.
 */
export type HostVerdict = { granted: true } | { granted: false; reason: string };

/** A code host's write-access check of one repository, authenticated with its `auth_secret`. */
export interface WriteAccessLookup {
  readonly platform: Platform;
  check(author: AuthorRef): Promise<HostVerdict>;
}

/** `ana`, or `user 42` when only the id is known: how reasons name the author. */
export function describeAuthor(author: AuthorRef): string {
  return author.login ?? `user ${author.id ?? '(unnamed)'}`;
}
