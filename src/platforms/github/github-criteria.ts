import type { TicketCriteriaFormat } from '../../criteria/criteria.js';
import { parseMarkdownCriteria } from '../../criteria/markdown-criteria.js';

/** GitHub issues: the body is Markdown; the criteria are its "Acceptance criteria" task list. */
export const githubCriteria: TicketCriteriaFormat = {
  parse: (source) => parseMarkdownCriteria(source.description),
};
