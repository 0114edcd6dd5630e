import { FindingSeverity } from '../../../agent/agent-types.js';
import { type ScanFinding, ScanTool } from '../scan-finding.js';
import { GENERIC_SECRET_RULE, type SecretMatch } from './secret-matcher.js';

/** Where a secret was seen. */
export interface SecretPlace {
  repo: string | null;
  path: string;
  line: number;
}

/** A known token shape is a credential for sure; a random-looking value is likely one. */
const severityOf = (match: SecretMatch) => (match.rule === GENERIC_SECRET_RULE ? FindingSeverity.Medium : FindingSeverity.High);

/** A secret in the current tree. Names the rule, the place and a masked preview, never the value. */
export function treeSecretFinding(match: SecretMatch, place: SecretPlace): ScanFinding {
  return {
    tool: ScanTool.Secrets,
    ruleId: match.rule,
    severity: severityOf(match),
    title: `${capitalised(match.label)} ${match.preview} in ${place.path}`,
    detail: `${capitalised(article(match.label))} ${match.label} (${match.preview}) is committed in ${place.path} at line ${place.line}: anyone who can read the repository can use it.`,
    suggestion: 'Revoke and rotate it, then remove it and have the code read it from the environment or a secret store.',
    repo: place.repo,
    path: place.path,
    line: place.line,
    endLine: null,
    commit: null,
    challenge: null,
  };
}

/** A secret a commit added that is no longer anywhere in the tree: removed, yet still readable. */
export function historySecretFinding(match: SecretMatch, place: SecretPlace, commit: string): ScanFinding {
  const short = commit.slice(0, 12);
  return {
    tool: ScanTool.Secrets,
    ruleId: match.rule,
    severity: severityOf(match),
    title: `${capitalised(match.label)} ${match.preview} removed from the tree but still in history`,
    detail: `Commit ${short} added ${article(match.label)} ${match.label} (${match.preview}) to ${place.path} at line ${place.line}. It is removed from the tree but still in history: rotate it.`,
    suggestion: 'Rotate it: anyone with a clone (or the host) still has the old commit. Rewriting history does not un-leak it.',
    repo: place.repo,
    path: place.path,
    line: place.line,
    endLine: null,
    commit: short,
    challenge: null,
  };
}

const article = (label: string) => (/^[aeiou]/i.test(label) ? 'an' : 'a');
const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
