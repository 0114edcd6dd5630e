import type { InlineComment } from './pull-request-review.js';
import { SERVICE_MARKER } from './service-marker.js';

/**
 * Texts the code hosts' review clients share: where an inline comment goes when a host will not
 * anchor it, and what an earlier, replaced review says instead of its old content.
 */

/** `src/a.ts` line 12 (or lines 12–14), as a heading for a comment that is not anchored. */
export function locationOf(comment: InlineComment): string {
  const lines = comment.endLine !== null && comment.endLine !== comment.line ? `lines ${comment.line}–${comment.endLine}` : `line ${comment.line}`;
  return `\`${comment.path}\` ${lines}`;
}

/** A comment as a plain note that says where it belongs. */
export function unanchoredNote(comment: InlineComment): string {
  return `**${locationOf(comment)}**\n\n${comment.body}`;
}

/** The summary with the comments the host refused to anchor appended. */
export function summaryWith(summary: string, unanchored: readonly InlineComment[]): string {
  if (unanchored.length === 0) return summary;
  return [summary, '', '---', '', ...unanchored.map((c) => `${unanchoredNote(c)}\n`)].join('\n');
}

const SUPERSEDED = 'Superseded by the review of';

/**
 * What a replaced GitHub review's body becomes (submitted reviews cannot be deleted). It keeps
 * the service marker (the service's own text never starts anything) but not the review's own
 * content; isSupersededNote tells later re-reviews to leave it alone.
 */
export function supersededNote(at: Date): string {
  return `${SERVICE_MARKER}\n_${SUPERSEDED} ${at.toISOString().slice(0, 16).replace('T', ' ')} UTC._`;
}

export function isSupersededNote(body: string): boolean {
  return body.startsWith(`${SERVICE_MARKER}\n_${SUPERSEDED} `);
}

/** The service's own earlier comment: it carries `marker` and the token's own account wrote it. */
export function isOwnMarked(body: string | null | undefined, author: string | null | undefined, self: string, marker: string): boolean {
  return typeof body === 'string' && body.includes(marker) && typeof author === 'string' && author.toLowerCase() === self.toLowerCase();
}
