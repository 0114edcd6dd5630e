import type { GitHubIssueState } from './github-stand-in.js';
import { byTime, updatedSinceParam } from './issue-history.js';
import { json, type StandInResponse } from './stand-in-server.js';

/** The GitHub stand-in's issue list query and issue events (github-stand-in.ts serves them). */

export interface GitHubIssueEvent {
  id: number;
  event: 'labeled' | 'unlabeled' | 'closed' | 'reopened';
  label?: string;
  actor: string;
  createdAt: string;
}

/**
 * `GET /repos/{o}/{r}/issues`: `state` (default open), `labels` (AND, case-insensitive), `since`
 * (updated at or after; 422 when unparsable), `sort=created|updated|comments`, `direction`
 * (default created, desc). Pull requests are listed too, as on GitHub.
 */
export function listIssues(issues: Iterable<GitHubIssueState>, query: URLSearchParams): GitHubIssueState[] | StandInResponse {
  const state = query.get('state') ?? 'open';
  const wanted = (query.get('labels') ?? '').split(',').filter(Boolean).map((l) => l.toLowerCase());
  const since = updatedSinceParam(query, 'since');
  if (since === null) return json(422, { message: 'Validation Failed', errors: [{ resource: 'Issue', field: 'since', code: 'invalid' }], documentation_url: 'https://docs.github.com/rest', status: '422' });
  const sort = query.get('sort') ?? 'created';
  const direction = query.get('direction') === 'asc' ? 'asc' : 'desc';
  const order =
    sort === 'comments'
      ? (a: GitHubIssueState, b: GitHubIssueState) => (direction === 'asc' ? 1 : -1) * (a.comments.length - b.comments.length || a.number - b.number)
      : byTime<GitHubIssueState>((i) => (sort === 'updated' ? i.updatedAt : i.createdAt), (i) => i.number, direction);
  return [...issues]
    .filter((i) => state === 'all' || i.state === state)
    .filter((i) => wanted.every((w) => i.labels.some((l) => l.toLowerCase() === w)))
    .filter((i) => since === undefined || Date.parse(i.updatedAt) >= since)
    .sort(order);
}

/** One entry of `GET …/issues/{n}/events`, as GitHub spells it. */
export function renderIssueEvent(e: GitHubIssueEvent, repoApiUrl: string): Record<string, unknown> {
  return {
    id: e.id,
    node_id: `IE_${e.id}`,
    url: `${repoApiUrl}/issues/events/${e.id}`,
    actor: { login: e.actor, type: 'User' },
    event: e.event,
    commit_id: null,
    commit_url: null,
    created_at: e.createdAt,
    ...(e.label === undefined ? {} : { label: { name: e.label, color: 'ededed' } }),
  };
}

/** GitHub's times: whole seconds, `Z`. */
export function isoSeconds(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}
