import { scrubSecrets } from '../../common/secret-scrubber.js';
import { commentMarkupFor } from '../../platforms/comment-markups.js';
import type { Platform } from '../../platforms/platform.js';
import { SERVICE_MARKER } from '../../platforms/service-marker.js';
import { TicketCommentKind, cutMiddle, runMarker } from './failure-comment.js';

/** The agent's `ask` kinds, as `run_questions.kind` holds them. */
export type HandBackKind = 'question' | 'contradiction' | 'not-implementable';

export interface HandBackCommentInput {
  platform: Platform;
  runId: string;
  pipeline: string;
  kind: HandBackKind;
  question: string;
  /** Values to scrub (see collectSecrets). */
  secrets: readonly string[];
  /** Longest question text kept. */
  maxChars: number;
}

const HEADLINE: Record<HandBackKind, string> = {
  question: 'handed this ticket back with a question',
  contradiction: 'handed this ticket back: it found a contradiction',
  'not-implementable': 'handed this ticket back: it judged the ticket not implementable as written',
};

/** One paragraph's pieces: plain text, or a name to show as code. */
type Piece = string | { code: string };

/**
 * How to answer, the same on every tracker. A not-implementable verdict is not a question: no
 * reply resumes it, only a retry (after the ticket was changed, or to try again anyway).
 */
function howToAnswer(kind: HandBackKind, runId: string): Piece[] {
  if (kind === 'not-implementable') {
    return ['A reply does not resume it. Change the ticket if it needs to, then retry run ', { code: runId }, ' from the dashboard: only a retry resumes it.'];
  }
  return [
    'To answer: reply to this ticket with a comment; or reply on the ticket\'s pull request, then comment ', { code: '/sa' },
    ' there to start the rework; or answer run ', { code: runId }, ' from the dashboard. The first answer resumes the work where this run left it.',
  ];
}

/**
 * The comment a parked run posts on its ticket once: the service marker and the run marker, what
 * kind of hand-back it is, the agent's question (secrets scrubbed, cut in the middle past
 * `maxChars`) shown as preformatted text so nothing in it renders as mentions or links, and how
 * to answer, in the tracker's markup (Markdown on A/B, HTML on C, wiki markup on D).
 */
export function buildHandBackComment(input: HandBackCommentInput): string {
  const { text } = cutMiddle(scrubSecrets(input.question.trim() || '(no question text)', input.secrets), input.maxChars);
  const markers = `${SERVICE_MARKER}\n${runMarker(input.runId, TicketCommentKind.HandBack)}`;
  const pipeline = scrubSecrets(input.pipeline, input.secrets);
  const headline = `Pipeline ${pipeline} ${HEADLINE[input.kind]}`;
  const help = howToAnswer(input.kind, input.runId);
  const m = commentMarkupFor(input.platform);
  const heading = m.paragraph(`${m.strong(m.text(headline))}${m.text(' (run ')}${m.code(input.runId)}${m.text(').')}`);
  const answer = m.paragraph(help.map((p) => (typeof p === 'string' ? m.text(p) : m.code(p.code))).join(''));
  return `${markers}\n${m.blocks([heading, m.preformatted(text), answer])}`;
}
