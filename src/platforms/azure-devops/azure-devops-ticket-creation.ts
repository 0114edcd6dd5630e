import type { TrackerHttp } from '../http/tracker-http.js';
import { type CreatedTicket, type NewTicket, criterionLine, escapeHtml } from '../ticket-creation.js';

/** The work item type filed when the trigger block names none: it carries acceptance criteria in Agile projects. */
export const DEFAULT_WORK_ITEM_TYPE = 'User Story';
/** The field the contract reads a work item's criteria from. */
export const ACCEPTANCE_CRITERIA_FIELD = 'Microsoft.VSTS.Common.AcceptanceCriteria';

interface CreatedWorkItem {
  id: number;
  _links?: { html?: { href?: string } };
}

/** Markdown shown as HTML without interpreting it: paragraphs at blank lines, line breaks kept. */
function descriptionHtml(markdown: string): string {
  return markdown.trim().split(/\n{2,}/).filter((p) => p.trim() !== '').map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`).join('');
}

/** The criteria as an HTML list, one item each, in order. */
export function criteriaHtml(criteria: readonly string[]): string {
  const items = criteria.map(criterionLine).filter((c) => c.length > 0);
  return items.length === 0 ? '' : `<ul>${items.map((c) => `<li>${escapeHtml(c)}</li>`).join('')}</ul>`;
}

/**
 * `POST {org}/{project}/_apis/wit/workitems/${type}?api-version=7.1` with a JSON Patch document
 * (`application/json-patch+json`) adding `System.Title`, `System.Description` (HTML), the
 * criteria in `Microsoft.VSTS.Common.AcceptanceCriteria` (an HTML list) and `System.Tags`
 * (`; `-separated) → 200 with the work item.
 */
export async function createWorkItem(http: TrackerHttp, project: string, webBase: string, ticket: NewTicket): Promise<CreatedTicket> {
  const type = ticket.type ?? DEFAULT_WORK_ITEM_TYPE;
  const ops: { op: 'add'; path: string; value: string }[] = [{ op: 'add', path: '/fields/System.Title', value: ticket.title }];
  const description = descriptionHtml(ticket.body);
  if (description) ops.push({ op: 'add', path: '/fields/System.Description', value: description });
  const criteria = criteriaHtml(ticket.criteria);
  if (criteria) ops.push({ op: 'add', path: `/fields/${ACCEPTANCE_CRITERIA_FIELD}`, value: criteria });
  if (ticket.labels.length > 0) ops.push({ op: 'add', path: '/fields/System.Tags', value: ticket.labels.join('; ') });
  const res = await http.request<CreatedWorkItem>({
    method: 'POST',
    path: `${project}/_apis/wit/workitems/$${encodeURIComponent(type)}`,
    query: { 'api-version': '7.1', $expand: 'links' },
    body: ops,
    contentType: 'application/json-patch+json',
  });
  return { ticket: String(res.body.id), url: res.body._links?.html?.href ?? `${webBase}${res.body.id}` };
}
