import { FindingSeverity } from '../../agent/agent-types.js';

/** Most severe first: the order reports list findings and counts in. */
export const SEVERITY_ORDER: readonly FindingSeverity[] = [FindingSeverity.Critical, FindingSeverity.High, FindingSeverity.Medium, FindingSeverity.Low, FindingSeverity.Info];

export const severityRank = (severity: FindingSeverity) => SEVERITY_ORDER.indexOf(severity);
