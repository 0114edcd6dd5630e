import { UNTRUSTED_DATA_NOTICE } from '../untrusted-text.js';
import { cutNote, oneLine, untrustedSection } from './prompt-text.js';

/**
 * The ticket as the model reads it. Title, description and each comment are written by anyone
 * who can edit the ticket, so each sits in its own untrusted-data block (sanitised, with a fresh
 * nonce), with the service's secrets scrubbed and long texts cut. What was cut or left out is
 * said outside the blocks, where the text cannot forge or hide it.
 */
export interface TicketBriefInput {
  ticketId: string;
  /** The tracker's name as the run knows it (`github`, `jira`, …). */
  platform: string;
  title: string | null;
  description: string | null;
  /** Oldest first, as `TrackerClient.listComments` answers them. */
  comments: readonly { author: string | null; body: string }[];
  /** Every secret value the service knows (collectSecrets): none may reach the model. */
  secrets: readonly string[];
  /** The acceptance criteria read from the ticket (ids given by the service), for `report_criterion`; absent or empty: none. */
  criteria?: readonly { id: string; text: string }[];
  /** Criteria the ticket lists beyond those taken (the limit). */
  criteriaDropped?: number;
}

export interface TicketBriefLimits {
  titleChars: number;
  descriptionChars: number;
  commentChars: number;
  /** The most recent comments kept; earlier ones are left out (the latest say what is wanted now). */
  comments: number;
}

/** About 70k characters at most (≈ 20k tokens): a long discussion does not crowd out the code. */
export const TICKET_BRIEF_LIMITS: TicketBriefLimits = Object.freeze({ titleChars: 500, descriptionChars: 20_000, commentChars: 4_000, comments: 50 });

export function buildTicketBrief(input: TicketBriefInput, limits: TicketBriefLimits = TICKET_BRIEF_LIMITS): string {
  const { secrets } = input;
  const out: string[] = [];
  out.push(`## Ticket ${oneLine(input.ticketId, secrets)} (${oneLine(input.platform, secrets)})`, '', UNTRUSTED_DATA_NOTICE, '');

  const title = untrustedSection('ticket-title', input.title ?? '', secrets, limits.titleChars);
  out.push('### Title', '', cutNote('The title', title) + title.block, '');

  out.push('### Description', '');
  if (input.description === null || input.description.trim() === '') out.push('The ticket has no description.', '');
  else {
    const description = untrustedSection('ticket-description', input.description, secrets, limits.descriptionChars);
    out.push(cutNote('The description', description) + description.block, '');
  }

  const criteria = input.criteria ?? [];
  if (criteria.length > 0) {
    const dropped = input.criteriaDropped ?? 0;
    out.push('### Acceptance criteria', '',
      `The service read ${criteria.length} acceptance criteria from the ticket${dropped > 0 ? ` (${dropped} more were left out: only the first ${criteria.length} are taken)` : ''}, `
      + 'one per line below, each after the id it gave it. Before you finish, report each one with `report_criterion` and that id.', '');
    // One block for the list: each criterion is one line already (no line break can forge an id).
    const list = untrustedSection('ticket-criteria', criteria.map((c) => `${c.id}: ${c.text}`).join('\n'), secrets, 60_000);
    out.push(cutNote('The criteria list', list) + list.block, '');
  }

  out.push('### Comments', '');
  const total = input.comments.length;
  if (total === 0) out.push('The ticket has no comments.');
  else {
    const keep = Math.max(0, Math.min(total, Math.floor(limits.comments)));
    const first = total - keep;
    const leftOut = first > 0 ? ` The first ${first} ${first === 1 ? 'is' : 'are'} left out; the last ${keep} follow.` : '';
    out.push(`${total} comment${total === 1 ? '' : 's'}, oldest first; a later comment may refine or override the description.${leftOut}`, '');
    input.comments.slice(first).forEach((comment, i) => {
      const n = first + i + 1;
      const author = comment.author === null ? 'unknown' : comment.author;
      const section = untrustedSection('ticket-comment', `From: ${author}\n\n${comment.body}`, secrets, limits.commentChars);
      out.push(`Comment ${n} of ${total}:`, cutNote(`Comment ${n}`, section) + section.block, '');
    });
  }
  return out.join('\n').trimEnd();
}
