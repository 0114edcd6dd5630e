import type { RepoConfig } from '../config/service-config.js';
import type { Platform } from '../platforms/platform.js';

/** Whom to check: a comment's (or review act's) author on a repository of a project. */
export interface WriteAccessQuery {
  platform: Platform;
  project: string;
  /** The project's repository the pull request lives in; null when the repository is not declared (no access). */
  repo: RepoConfig | null;
  /** The author as the payload names them. */
  author: { login: string | null; id: string | null; displayName: string | null };
  /** GitHub `author_association` from the payload (the whole check there: no API call); null elsewhere. */
  authorAssociation: string | null;
}

/**
 * The verdict. `source`: `payload` (GitHub's author_association), `lookup` (asked the host now),
 * `remembered` (a verdict of the last five minutes, from any replica), `not-required`
 * (`pr_commands.require_member: false`). A refusal without a host's answer (unknown project,
 * undeclared repository, no token, unnamed author, a failed lookup) is `lookup` too, and is never
 * remembered. `reason` is one line for the pull-request reply and the trigger log: why access was
 * refused (never a credential).
 */
export type WriteAccessVerdict =
  | { granted: true; source: 'payload' | 'lookup' | 'remembered' | 'not-required' }
  | { granted: false; source: 'payload' | 'lookup' | 'remembered'; reason: string };

/** How long a verdict is remembered per author and repository (spec "Limits": 5 min). */
export const WRITE_ACCESS_MEMORY_MS = 5 * 60_000;
