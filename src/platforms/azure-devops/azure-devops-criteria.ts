import type { TicketCriteriaFormat } from '../../criteria/criteria.js';
import { parseHtmlCriteriaField, parseHtmlCriteriaSection } from '../../criteria/html-criteria.js';
import { parseMarkdownCriteria } from '../../criteria/markdown-criteria.js';

/** The work item field that holds acceptance criteria (Agile, Scrum and CMMI processes; HTML). */
export const ACCEPTANCE_CRITERIA_FIELD = 'Microsoft.VSTS.Common.AcceptanceCriteria';

/**
 * Azure DevOps work items: the acceptance-criteria field (its list items, or its lines); a work
 * item type without that field (the Basic process's Issue) may carry an "Acceptance criteria"
 * heading and list in its HTML description instead, or in a description kept as Markdown.
 */
export const azureDevOpsCriteria: TicketCriteriaFormat = {
  parse: (source) => {
    const field = parseHtmlCriteriaField(source.acceptanceCriteria);
    if (field.criteria.length > 0) return field;
    const description = source.description ?? '';
    // HTML as the rich-text editor writes it; a description kept as Markdown may hold a `<` too.
    const html = description.includes('<') ? parseHtmlCriteriaSection(description) : null;
    return html && html.criteria.length > 0 ? html : parseMarkdownCriteria(description);
  },
};
