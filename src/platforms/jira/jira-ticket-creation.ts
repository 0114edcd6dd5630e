import type { TrackerHttp } from '../http/tracker-http.js';
import { TrackerError } from '../tracker-client.js';
import { ACCEPTANCE_CRITERIA_HEADING, type CreatedTicket, type NewTicket, criterionLine } from '../ticket-creation.js';
import { Platform } from '../platform.js';

/** The issue type filed when the trigger block names none. */
export const DEFAULT_ISSUE_TYPE = 'Task';

interface CreatedIssue {
  key: string;
}

type AdfNode = Record<string, unknown>;

const paragraph = (text: string): AdfNode => ({ type: 'paragraph', content: text === '' ? [] : [{ type: 'text', text }] });

/**
 * The description as an Atlassian Document Format document: the body's paragraphs (text, line
 * breaks kept), then a level-2 heading "Acceptance criteria" and a bullet list whose items read
 * `[ ] <criterion>`, which reads back as the Markdown task list (`- [ ] …`) the contract names.
 */
export function descriptionDocument(ticket: Pick<NewTicket, 'body' | 'criteria'>): AdfNode {
  const content: AdfNode[] = [];
  for (const block of ticket.body.trim().split(/\n{2,}/)) {
    if (block.trim() === '') continue;
    const lines = block.split('\n');
    content.push({ type: 'paragraph', content: lines.flatMap((line, i) => [...(i > 0 ? [{ type: 'hardBreak' }] : []), ...(line ? [{ type: 'text', text: line }] : [])]) });
  }
  const items = ticket.criteria.map(criterionLine).filter((c) => c.length > 0);
  if (items.length > 0) {
    content.push({ type: 'heading', attrs: { level: 2 }, content: [{ type: 'text', text: ACCEPTANCE_CRITERIA_HEADING }] });
    content.push({ type: 'bulletList', content: items.map((c) => ({ type: 'listItem', content: [paragraph(`[ ] ${c}`)] })) });
  }
  return { type: 'doc', version: 1, content };
}

/** Wiki markup's specials in a criterion, escaped: `{code}` or `[link]` in one is text, not markup. */
function escapeWiki(text: string): string {
  return text.replace(/[\\{}[\]|]/g, '\\$&');
}

/** The same description in wiki markup, for Data Center's REST v2 (no v3 there). */
export function descriptionWiki(ticket: Pick<NewTicket, 'body' | 'criteria'>): string {
  const items = ticket.criteria.map(criterionLine).filter((c) => c.length > 0);
  const criteria = items.length === 0 ? '' : [`h2. ${ACCEPTANCE_CRITERIA_HEADING}`, '', ...items.map((c) => `* [ ] ${escapeWiki(c)}`)].join('\n');
  return [ticket.body.trim(), criteria].filter((p) => p !== '').join('\n\n');
}

/**
 * Jira Cloud: `POST /rest/api/3/issue` with `fields` (project key, `summary`, `issuetype` by
 * name, `description` as ADF, `labels`) → 201 `{id, key, self}`. Data Center has no v3 (404):
 * then `POST /rest/api/2/issue` with the description in wiki markup. Jira refuses labels with
 * spaces (400); they are joined with hyphens first.
 */
export async function createJiraIssue(http: TrackerHttp, projectKey: string | null, browseBase: string, ticket: NewTicket): Promise<CreatedTicket> {
  if (!projectKey) throw new TrackerError('platform_d_trigger needs project_key to file issues', Platform.Jira, null, false);
  const fields = {
    project: { key: projectKey },
    summary: ticket.title.replace(/\s+/g, ' ').trim().slice(0, 255),
    issuetype: { name: ticket.type ?? DEFAULT_ISSUE_TYPE },
    labels: ticket.labels.map((l) => l.trim().replace(/\s+/g, '-')).filter((l) => l !== ''),
  };
  const v3 = await http.request<CreatedIssue>({ method: 'POST', path: 'rest/api/3/issue', body: { fields: { ...fields, description: descriptionDocument(ticket) } }, passStatuses: [404] });
  let key = v3.status === 404 ? null : v3.body.key;
  if (key === null) {
    const v2 = await http.request<CreatedIssue>({ method: 'POST', path: 'rest/api/2/issue', body: { fields: { ...fields, description: descriptionWiki(ticket) } } });
    key = v2.body.key;
  }
  return { ticket: key, url: `${browseBase}${key}` };
}
