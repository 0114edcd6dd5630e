import type { TrackerHttp } from '../http/tracker-http.js';
import { type CreatedTicket, type NewTicket, markdownWithCriteria } from '../ticket-creation.js';

interface CreatedIssue {
  iid: number;
  web_url: string;
}

/**
 * `POST /projects/:id/issues` with `title`, `description` (Markdown, the criteria's task list at
 * its end) and `labels` (comma-separated; GitLab creates missing project labels) → 201.
 */
export async function createGitLabIssue(http: TrackerHttp, projectPath: string, ticket: NewTicket): Promise<CreatedTicket> {
  const res = await http.request<CreatedIssue>({
    method: 'POST',
    path: `${projectPath}/issues`,
    body: { title: ticket.title, description: markdownWithCriteria(ticket), ...(ticket.labels.length > 0 ? { labels: ticket.labels.join(',') } : {}) },
  });
  return { ticket: String(res.body.iid), url: res.body.web_url };
}
