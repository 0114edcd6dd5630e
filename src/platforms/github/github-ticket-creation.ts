import type { TrackerHttp } from '../http/tracker-http.js';
import { type CreatedTicket, type NewTicket, markdownWithCriteria } from '../ticket-creation.js';

interface CreatedIssue {
  number: number;
  html_url: string;
}

/**
 * `POST /repos/{owner}/{repo}/issues` with `title`, `body` (Markdown, the criteria's task list
 * at its end) and `labels` (GitHub creates a label that does not exist yet) → 201 with the issue.
 */
export async function createGitHubIssue(http: TrackerHttp, repoPath: string, headers: Record<string, string>, ticket: NewTicket): Promise<CreatedTicket> {
  const res = await http.request<CreatedIssue>({
    method: 'POST',
    path: `${repoPath}/issues`,
    headers,
    body: { title: ticket.title, body: markdownWithCriteria(ticket), labels: [...ticket.labels] },
  });
  return { ticket: String(res.body.number), url: res.body.html_url };
}
