import type { FindingSeverity } from '../../agent/agent-types.js';

/** Which part of a scan found something: a deterministic scanner, or the model. */
export const ScanTool = { Secrets: 'secrets', Dependencies: 'dependencies', Model: 'model' } as const;
export type ScanTool = (typeof ScanTool)[keyof typeof ScanTool];

/** What the refutation call made of a model finding that no scanner backs. */
export const Challenge = { Confirmed: 'confirmed', Refuted: 'refuted', NotChallenged: 'not-challenged' } as const;
export type Challenge = (typeof Challenge)[keyof typeof Challenge];

/** One result of a `security-scan`, whichever part found it. Never carries a secret's value. */
export interface ScanFinding {
  tool: ScanTool;
  /** Stable rule id: `github-token`, `high-entropy-string`, `npm-audit/GHSA-…`, `model/<slug>`. */
  ruleId: string;
  severity: FindingSeverity;
  title: string;
  detail: string;
  suggestion: string | null;
  /** The repository's name in a multi-repository project, else null. */
  repo: string | null;
  /** Relative to the repository root, `/`-separated. */
  path: string;
  line: number;
  endLine: number | null;
  /** The commit that added it, for a secret found in history (not in the current tree). */
  commit: string | null;
  /** Model findings only: what the refutation call concluded. */
  challenge: Challenge | null;
}

/** What one scanner did: its findings, or why it did not run. */
export interface ScannerReport {
  tool: ScanTool;
  /** A short name for the report: `secrets in the tree`, `secrets in history`, `npm audit`. */
  name: string;
  ran: boolean;
  /** Why it did not run (or ran partly): shown in the report and the SARIF's notifications. */
  note: string | null;
  findings: ScanFinding[];
  durationMs: number;
}
