import { commentMarkupFor } from '../../platforms/comment-markups.js';
import type { Platform } from '../../platforms/platform.js';
import { SERVICE_MARKER } from '../../platforms/service-marker.js';
import { scrubSecrets } from '../../common/secret-scrubber.js';

/** Kinds of comments the service posts once per run (the `ticket_comments.kind` column). */
export const TicketCommentKind = { Failure: 'failure', PullRequests: 'pull-requests', HandBack: 'hand-back' } as const;
export type TicketCommentKind = (typeof TicketCommentKind)[keyof typeof TicketCommentKind];

/** Hidden marker naming the run and kind a comment was posted for; found again to post it once only. */
export function runMarker(runId: string, kind: TicketCommentKind): string {
  return `<!-- ${runMarkerText(runId, kind)} -->`;
}

/**
 * True when `body` carries the marker of this run and kind. Matches the marker's text, not the
 * HTML comment around it, so a tracker that escapes or strips `<!--` still dedupes.
 */
export function carriesRunMarker(body: string, runId: string, kind: TicketCommentKind): boolean {
  return body.toLowerCase().includes(runMarkerText(runId, kind).toLowerCase());
}

function runMarkerText(runId: string, kind: TicketCommentKind): string {
  return `pipeline-service run:${runId} kind:${kind}`;
}

export interface FailureCommentInput {
  platform: Platform;
  runId: string;
  pipeline: string;
  error: string | null;
  /** Values to scrub (see collectSecrets). */
  secrets: readonly string[];
  /** Longest error text kept. */
  maxChars: number;
}

/**
 * The comment a failed run posts on its ticket: the service marker, the run marker, the pipeline
 * and the error with every secret replaced by `***`, cut in the middle when longer than
 * `maxChars` (the start says what failed, the end what happened last), formatted for the
 * tracker's markup (Markdown on A/B, HTML on C, wiki markup on D).
 */
export function buildFailureComment(input: FailureCommentInput): string {
  const scrubbed = scrubSecrets(input.error?.trim() || 'no error message was recorded', input.secrets);
  const { text, cut } = cutMiddle(scrubbed, input.maxChars);
  const markers = `${SERVICE_MARKER}\n${runMarker(input.runId, TicketCommentKind.Failure)}`;
  const note = cut > 0 ? `The error was shortened: ${cut} characters in the middle were left out; the run's record holds it whole.` : null;
  const pipeline = scrubSecrets(input.pipeline, input.secrets);
  const m = commentMarkupFor(input.platform);
  const heading = m.paragraph(`${m.strong(`${m.text('Pipeline ')}${m.code(pipeline)}${m.text(' failed')}`)}${m.text(' (run ')}${m.code(input.runId)}${m.text(').')}`);
  return `${markers}\n${m.blocks([heading, m.preformatted(text), ...(note ? [m.paragraph(m.italic(m.text(note)))] : [])])}`;
}

/** Keeps the first quarter and the last three quarters of `maxChars`, never splitting a surrogate pair. */
export function cutMiddle(text: string, maxChars: number): { text: string; cut: number } {
  const chars = Array.from(text);
  if (chars.length <= maxChars) return { text, cut: 0 };
  const head = Math.floor(maxChars / 4);
  const tail = maxChars - head;
  const cut = chars.length - head - tail;
  return { text: `${chars.slice(0, head).join('')}\n… [${cut} characters left out] …\n${chars.slice(chars.length - tail).join('')}`, cut };
}
