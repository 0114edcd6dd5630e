/**
 * How serious a reviewed or scanned finding is (`report_finding`, SARIF, `fail_on`). A leaf: the
 * configuration and the agent both name it, and neither may import the other for it.
 */
export const FindingSeverity = { Critical: 'critical', High: 'high', Medium: 'medium', Low: 'low', Info: 'info' } as const;
export type FindingSeverity = (typeof FindingSeverity)[keyof typeof FindingSeverity];
