import { scrubSecrets } from '../../common/secret-scrubber.js';
import { MARKDOWN_COMMENT_MARKUP } from '../../platforms/comment-markup.js';
import type { Platform } from '../../platforms/platform.js';
import { pullRequestAnswerAct } from '../../platforms/pull-request-answer-act.js';
import { SERVICE_MARKER } from '../../platforms/service-marker.js';
import { cutMiddle } from '../../tickets/label-projection/failure-comment.js';
import type { HandBackKind } from '../../tickets/label-projection/hand-back-comment.js';

/** The marker of a parked run's note on a pull request: upsertComment edits the service's own one instead of adding another. */
export function handBackMarker(runId: string): string {
  return `<!-- pipeline-service:hand-back:${runId} -->`;
}

/** Longest question shown on a pull request. */
const QUESTION_CHARS = 8_000;

const HEADLINE: Record<HandBackKind, string> = {
  question: 'handed the ticket back with a question',
  contradiction: 'handed the ticket back: it found a contradiction',
  'not-implementable': 'handed the ticket back: it judged it not implementable as written',
};

/**
 * The hand-back as a note on the ticket's open service pull request (Markdown on every host):
 * the service marker (so it never starts anything), the hand-back marker, the question as
 * preformatted text, and how to answer from the pull request (rule 3 of "Rework on a service
 * pull request": a reply, then a command; on Azure DevOps, whose comments never reach the
 * service, a Wait for author vote is the act).
 */
export function buildPullRequestHandBack(input: {
  runId: string; pipeline: string; ticket: string; kind: HandBackKind; question: string; secrets: readonly string[];
  /** The pull request's host: says which act answers there. */
  platform: Platform;
}): string {
  const scrub = (text: string) => scrubSecrets(text, input.secrets);
  const { text } = cutMiddle(scrub(input.question.trim() || '(no question text)'), QUESTION_CHARS);
  const how = input.kind === 'not-implementable'
    ? `No reply resumes it: change the ticket if it needs to, then retry run \`${input.runId}\` from the dashboard.`
    : `To answer here: reply on this pull request, then ${pullRequestAnswerAct(input.platform)} to end the wait and start the rework. `
      + `You can also reply on the ticket, or answer run \`${input.runId}\` from the dashboard.`;
  return [
    SERVICE_MARKER,
    handBackMarker(input.runId),
    `**The \`${scrub(input.pipeline).replace(/`/g, '')}\` run of ticket ${scrub(input.ticket).replace(/[`*_[\]]/g, '')} ${HEADLINE[input.kind]}** (run \`${input.runId}\`).`,
    '',
    MARKDOWN_COMMENT_MARKUP.preformatted(text),
    '',
    how,
  ].join('\n');
}
