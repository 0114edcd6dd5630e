import { commentMarkupFor } from '../../platforms/comment-markups.js';
import type { Platform } from '../../platforms/platform.js';
import { SERVICE_MARKER } from '../../platforms/service-marker.js';
import { TicketCommentKind, runMarker } from './failure-comment.js';

export interface ListedPullRequest {
  repo: string;
  url: string;
}

/**
 * The ticket comment of a successful run listing its pull requests, in the tracker's markup
 * (Markdown on A/B, HTML on C, wiki markup on D), with the service marker and the run marker
 * that lets it be posted once only. Posted before the run's `done_status` is set.
 */
export function buildPullRequestsComment(platform: Platform, run: { runId: string; pipeline: string }, prs: readonly ListedPullRequest[]): string {
  const markers = `${SERVICE_MARKER}\n${runMarker(run.runId, TicketCommentKind.PullRequests)}`;
  const heading = `Pipeline ${run.pipeline} (run ${run.runId}) proposes its change in ${prs.length === 1 ? 'this pull request' : `${prs.length} pull requests`}:`;
  const m = commentMarkupFor(platform);
  return `${markers}\n${m.blocks([m.paragraph(m.text(heading)), m.list(prs.map((pr) => `${m.text(pr.repo)}: ${m.link(pr.url)}`))])}`;
}
