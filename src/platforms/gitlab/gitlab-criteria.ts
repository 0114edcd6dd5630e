import type { TicketCriteriaFormat } from '../../criteria/criteria.js';
import { parseMarkdownCriteria } from '../../criteria/markdown-criteria.js';

/** GitLab issues: the description is Markdown; the criteria are its "Acceptance criteria" task list. */
export const gitlabCriteria: TicketCriteriaFormat = {
  parse: (source) => parseMarkdownCriteria(source.description),
};
