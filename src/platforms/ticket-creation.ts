/**
 * Filing a new ticket (the design dialogue's drafts): what a tracker client's `createTicket` takes
 * and answers, and the one rendering of acceptance criteria every tracker's description shares.
 * Each platform folder writes the request its API wants (`*-ticket-creation.ts`).
 */

/** A ticket to file. `criteria` are rendered by the tracker's client where its tickets keep them. */
export interface NewTicket {
  title: string;
  /** Markdown, without the criteria. */
  body: string;
  criteria: readonly string[];
  labels: readonly string[];
  /**
   * The trigger block's `ticket_type` (Azure DevOps work item type, Jira issue type); null → the
   * platform's default. Issues on GitHub and GitLab have no type.
   */
  type: string | null;
}

/** A filed ticket: its id as the service spells ticket ids, and its web page. */
export interface CreatedTicket {
  ticket: string;
  url: string;
}

/** The heading the contract reads criteria under. */
export const ACCEPTANCE_CRITERIA_HEADING = 'Acceptance criteria';

/** One criterion on one line: a line break inside it would end the task-list item. */
export function criterionLine(criterion: string): string {
  return criterion.replace(/\s+/g, ' ').trim();
}

/** `## Acceptance criteria` and a Markdown task list (`- [ ] …`), or nothing without criteria. */
export function criteriaMarkdown(criteria: readonly string[]): string {
  const items = criteria.map(criterionLine).filter((c) => c.length > 0);
  if (items.length === 0) return '';
  return [`## ${ACCEPTANCE_CRITERIA_HEADING}`, '', ...items.map((c) => `- [ ] ${c}`)].join('\n');
}

/** The body with the criteria's section after it (Markdown trackers: GitHub, GitLab). */
export function markdownWithCriteria(ticket: Pick<NewTicket, 'body' | 'criteria'>): string {
  const criteria = criteriaMarkdown(ticket.criteria);
  const body = ticket.body.trim();
  return [body, criteria].filter((part) => part.length > 0).join('\n\n');
}

/** Text made safe for HTML fields (Azure DevOps). */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
