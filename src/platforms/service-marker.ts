/**
 * The hidden HTML comment the service puts in every comment it writes, so that its own notes
 * never start anything. On pull requests a comment is the service's own only when it carries
 * the marker *and* was written by the account behind the repository token (spec, "Rework on a
 * service pull request" rule 4); that author check needs I/O and lives with the PR flow.
 */
export const SERVICE_MARKER = '<!-- pipeline-service -->';

/** Tolerates the whitespace variations editors and trackers introduce inside the comment. */
const SERVICE_MARKER_PATTERN = /<!--\s*pipeline-service\s*-->/i;

/** True when `text` carries the service marker. */
export function carriesServiceMarker(text: string): boolean {
  return SERVICE_MARKER_PATTERN.test(text);
}

/** Prefix of the service's own lifecycle labels: never a trigger, and the only labels transitions change. */
export const SERVICE_LABEL_PREFIX = 'service:';

/** The lifecycle labels of the spec (`service:pending` … `service:failed`), and `service:parked` of a handed-back ticket. */
export const LIFECYCLE_LABELS: readonly string[] = ['pending', 'enqueued', 'in-progress', 'done', 'failed', 'parked'].map((s) => `${SERVICE_LABEL_PREFIX}${s}`);
