import { Platform } from '../../platforms/platform.js';
import { SERVICE_MARKER } from '../../platforms/service-marker.js';
import { TicketCommentKind, escapeHtml, runMarker } from './failure-comment.js';

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
  switch (platform) {
    case Platform.AzureDevOps:
      return [markers, `<p>${escapeHtml(heading)}</p>`, '<ul>', ...prs.map((pr) => `<li>${escapeHtml(pr.repo)}: <a href="${escapeHtml(pr.url).replace(/"/g, '&quot;')}">${escapeHtml(pr.url)}</a></li>`), '</ul>'].join('\n');
    case Platform.Jira:
      return [markers, heading, ...prs.map((pr) => `* ${pr.repo}: [${pr.url}]`)].join('\n');
    case Platform.GitHub:
    case Platform.GitLab:
      return [markers, heading, '', ...prs.map((pr) => `- ${pr.repo}: ${pr.url}`)].join('\n');
  }
}
