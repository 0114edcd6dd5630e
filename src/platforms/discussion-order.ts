import type { DiscussionItem } from '../conversations/run-conversation.js';

/**
 * Oldest first by the hosts' times, which is the order a reader follows across a host's several
 * lists (GitHub's conversation, reviews and threads). The sort is stable: items of one instant
 * keep the host's order; an item whose time cannot be read goes last.
 */
export function byTime(items: readonly DiscussionItem[]): DiscussionItem[] {
  const at = (item: DiscussionItem): number => {
    const time = Date.parse(item.createdAt);
    return Number.isNaN(time) ? Number.MAX_SAFE_INTEGER : time;
  };
  return [...items].sort((a, b) => at(a) - at(b));
}
