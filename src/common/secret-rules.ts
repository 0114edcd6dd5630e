/**
 * Well-known token shapes, shared by the push-time secret scan (workspaces) and the
 * `security-scan` pipeline's secret scanners. Deliberately specific (prefixes, fixed lengths, key
 * markers): a push refused, or a report padded, for a random hex string teaches people to ignore
 * the scan.
 */
export interface TokenRule {
  /** Stable name: a refusal's `rule`, a scan finding's `ruleId`. */
  rule: string;
  /** What it is, for a human: `GitHub token`. */
  label: string;
  /** Matches the token; a `value` group, when present, is the secret part (else the whole match). */
  pattern: RegExp;
  /**
   * A POSIX extended regular expression (case-insensitive use) that every match also matches:
   * `git grep` picks candidate lines with it, then `pattern` decides.
   */
  hint: string;
  /** The token's public head, safe to show in a masked preview (`ghp_`): never part of the secret. */
  shownHead?: RegExp;
}

export const TOKEN_RULES: readonly TokenRule[] = [
  { rule: 'github-token', label: 'GitHub token', pattern: /\bgh[pousr]_[A-Za-z0-9]{36,255}\b/, hint: 'gh[pousr]_[a-z0-9]{36}', shownHead: /^gh[pousr]_/ },
  { rule: 'github-fine-grained-token', label: 'GitHub fine-grained token', pattern: /\bgithub_pat_[A-Za-z0-9_]{50,255}\b/, hint: 'github_pat_', shownHead: /^github_pat_/ },
  {
    rule: 'gitlab-token',
    label: 'GitLab token',
    pattern: /\bgl(?:pat|ptt|dt|rt|soat|ffct|cbt|imt|oas|agent)-[A-Za-z0-9_-]{20,}/,
    hint: 'gl(pat|ptt|dt|rt|soat|ffct|cbt|imt|oas|agent)-',
    shownHead: /^gl[a-z]+-/,
  },
  { rule: 'azure-devops-pat', label: 'Azure DevOps personal access token', pattern: /\b[A-Za-z0-9]{52}JQQJ9[59][A-Za-z0-9]{3}AZDO[A-Za-z0-9]{4}\b/, hint: 'JQQJ9[59]' },
  {
    rule: 'azure-storage-key',
    label: 'Azure storage key',
    pattern: /\b(?:AccountKey|SharedAccessKey)=(?<value>[A-Za-z0-9+/]{40,}={0,2})/,
    hint: '(AccountKey|SharedAccessKey)=',
  },
  { rule: 'aws-access-key-id', label: 'AWS access key id', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b/, hint: '(AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}', shownHead: /^A[A-Z0-9]{3}/ },
  {
    rule: 'aws-secret-access-key',
    label: 'AWS secret access key',
    pattern: /aws_?secret_?access_?key["']?\s*[:=]\s*["']?(?<value>[A-Za-z0-9/+=]{40})\b/i,
    hint: 'aws_?secret_?access_?key',
  },
  { rule: 'private-key', label: 'private key', pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/, hint: 'PRIVATE KEY' },
];
