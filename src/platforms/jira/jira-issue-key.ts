/**
 * Jira issue keys (`BILL-12`): a project key (a letter, then letters, digits or `_`; Jira's own
 * rule, at most 255 characters) and an issue number without leading zeros (at most 18 digits, so
 * it fits a 64-bit integer). Case-insensitive on input: Jira answers `bill-12` for `BILL-12`.
 */
export const JIRA_ISSUE_KEY = /^[A-Z][A-Z0-9_]{0,254}-[1-9]\d{0,17}$/i;

/**
 * The canonical (upper-case) form of an issue key, or null when `value` is not one. One Jira
 * issue must map to one ticket: `ops-1` and `Ops-1` are `OPS-1`, while `OPS-01` is refused.
 */
export function canonicalJiraIssueKey(value: string): string | null {
  return JIRA_ISSUE_KEY.test(value) ? value.toUpperCase() : null;
}

/** The project key of a canonical issue key: `BILL-12` → `BILL`. */
export function jiraProjectKeyOf(issueKey: string): string {
  return issueKey.slice(0, issueKey.lastIndexOf('-'));
}
