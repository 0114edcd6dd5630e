import { scrubSecrets } from '../../common/secret-scrubber.js';
import type { GitCommandFailure } from './git-command.js';
import type { GitCredential } from './git-credential.js';
import { credentialSecrets } from './git-environment.js';
import { WorkspaceError, WorkspaceErrorKind } from './workspace-error.js';

/** What git says (LANG=C) for each kind; the first matching kind wins, in this order. */
const PATTERNS: readonly [WorkspaceErrorKind, RegExp][] = [
  // Redirects are refused (they would carry the credential elsewhere): the repository moved.
  [WorkspaceErrorKind.NotFound, /returned error: 30[1278]\b|\bHTTP\/[\d.]+ 30[1278]\b/i],
  [WorkspaceErrorKind.Credentials, /Authentication failed|could not read (Username|Password)|HTTP Basic: Access denied|returned error: 40[13]|\bHTTP\/[\d.]+ 40[13]\b|\b40[13] (Unauthorized|Forbidden)\b|Permission to \S+ denied/i],
  [WorkspaceErrorKind.NotFound, /Repository not found|repository '[^']*' not found|does not appear to be a git repository|couldn't find remote ref|returned error: 404|\bHTTP\/[\d.]+ 404\b/i],
  [WorkspaceErrorKind.Unreachable, /Could not resolve (host|proxy)|Connection refused|Failed to connect|Couldn't connect|Connection timed out|Operation timed out|Connection reset|SSL certificate|SSL connect|server certificate|gnutls_handshake|returned error: 5\d\d|\bHTTP\/[\d.]+ 5\d\d\b|Empty reply from server|transfer closed|RPC failed|early EOF|unexpected disconnect|remote end hung up/i],
  [WorkspaceErrorKind.Diverged, /non-fast-forward|fetch first|stale info|Updates were rejected because/i],
  [WorkspaceErrorKind.Protected, /protected branch|hook declined|\bdeclined\b|not allowed to (push|force push)|TF402455|push access denied/i],
];

const ADVICE: Record<WorkspaceErrorKind, string> = {
  [WorkspaceErrorKind.Credentials]: "the host refused the repository's auth_secret: check that the token is valid, not expired, and may read and write the repository",
  [WorkspaceErrorKind.NotFound]: "check the repository's url (and that the token can see the repository); a redirect means the repository moved: set its new url (redirects are not followed, so the token never goes elsewhere)",
  [WorkspaceErrorKind.Unreachable]: 'the host could not be reached or failed: check the url, the network and the host\'s status, then retry',
  [WorkspaceErrorKind.Diverged]: 'the branch moved on the remote since the run started: re-run the ticket to start from the new tip',
  [WorkspaceErrorKind.Protected]: "the host declined the push (branch protection or a server hook): allow the service's user to push to the branch",
  [WorkspaceErrorKind.Failed]: 'see git\'s message',
};

export interface FailureContext {
  /** The repository's configured name. */
  repository: string;
  /** What was being done, e.g. `fetching`, `pushing service/42`. */
  action: string;
  credential?: GitCredential | null;
}

/** The kind a failed git invocation's stderr (and exit) points at; `failed` when nothing matches. */
export function kindOfFailure(failure: GitCommandFailure): WorkspaceErrorKind {
  if (failure.timedOut) return WorkspaceErrorKind.Unreachable;
  if (failure.spawnError) return WorkspaceErrorKind.Failed;
  // URLs and object names are data, not git's words: a repository called ssl-tools or a sha with 404 in it mean nothing.
  const text = failure.stderr.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s']+/gi, '<url>').replace(/\b[0-9a-f]{7,64}\b/g, '<sha>');
  for (const [kind, pattern] of PATTERNS) if (pattern.test(text)) return kind;
  return WorkspaceErrorKind.Failed;
}

/** A WorkspaceError naming the repository, what failed and what to do, with the credential scrubbed out. */
export function workspaceErrorFrom(failure: GitCommandFailure, context: FailureContext, kind = kindOfFailure(failure)): WorkspaceError {
  const said = failure.timedOut ? 'git did not finish in time' : gitSaid(failure);
  const message = `repository ${context.repository}: ${context.action} failed (${kind}): ${ADVICE[kind]}. ${said}`;
  return new WorkspaceError(kind, scrubSecrets(message, credentialSecrets(context.credential)));
}

function gitSaid(failure: GitCommandFailure): string {
  if (failure.spawnError) return failure.spawnError;
  const lines = failure.stderr.split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('hint:'));
  return lines.length ? `git said: ${lines.slice(-4).join(' | ')}` : `git exited with ${failure.exitCode}`;
}
