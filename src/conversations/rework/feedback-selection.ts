import { isOwnMarked } from '../../platforms/review-text.js';
import { SERVICE_MARKER } from '../../platforms/service-marker.js';
import type { DiscussionItem } from '../run-conversation.js';

/**
 * What of a pull request's discussion the next attempt reads (spec, "Rework on a service pull
 * request" rule 1): everything written since the previous attempt started, and every comment of
 * a thread still open, however old. Never the host's own notes, nor the service's own comments:
 * those carry the service marker *and* come from the token's account `self` (rule 4; a marker
 * pasted by someone else is a stranger's comment and is kept). Without a previous attempt
 * (`since` null) everything is new. A time the host gave that cannot be read counts as new.
 */
export function reworkFeedback(items: readonly DiscussionItem[], self: string, since: Date | null): DiscussionItem[] {
  return items.filter((item) =>
    !item.system
    && !isOwnMarked(item.body, item.author, self, SERVICE_MARKER)
    && (since === null || item.resolved === false || writtenSince(item, since)));
}

function writtenSince(item: DiscussionItem, since: Date): boolean {
  const at = Date.parse(item.createdAt);
  return Number.isNaN(at) || at >= since.getTime();
}
