import type { AgentFinding, FindingSeverity } from '../../agent/agent-types.js';
import type { PullRequestFile } from '../../platforms/pull-request-review.js';

/** Spec: at most 25 inline comments per review; everything else goes into the summary. */
export const MAX_INLINE_COMMENTS = 25;

const SEVERITY_ORDER: Record<FindingSeverity, number> = { critical: 0, high: 1, medium: 2, low: 3, info: 4 };

/** A finding placed on a changed line of the new side. */
export interface AnchoredFinding {
  finding: AgentFinding;
  /** Path within the repository (without a multi-repository prefix). */
  path: string;
  line: number;
  endLine: number | null;
}

export interface ReviewPlacement {
  inline: AnchoredFinding[];
  /** Findings outside the diff, and those beyond the inline limit, in the order reported. */
  summary: AgentFinding[];
}

/**
 * Which findings become inline comments: those on a changed new-side line of a file in the
 * diff (a range keeps its end only when every line of it changed, as hosts anchor ranges within
 * the diff), the most severe first, at most `max`; the rest go to the summary.
 * `pathIn` maps a finding's path to the repository's (strips the multi-repository prefix), or
 * null when the finding belongs to another repository.
 */
export function placeFindings(
  findings: readonly AgentFinding[],
  files: readonly PullRequestFile[],
  pathIn: (path: string) => string | null,
  max = MAX_INLINE_COMMENTS,
): ReviewPlacement {
  const changed = new Map(files.map((f) => [f.path, new Set(f.changedLines)]));
  const anchorable: AnchoredFinding[] = [];
  const summary: AgentFinding[] = [];
  for (const finding of findings) {
    const path = pathIn(finding.path);
    if (path === null) continue;
    const lines = changed.get(path);
    if (!lines?.has(finding.line)) {
      summary.push(finding);
      continue;
    }
    let endLine: number | null = null;
    if (finding.endLine !== null && finding.endLine > finding.line) {
      let whole = true;
      for (let l = finding.line; l <= finding.endLine && whole; l++) whole = lines.has(l);
      if (whole) endLine = finding.endLine;
    }
    anchorable.push({ finding, path, line: finding.line, endLine });
  }
  const ranked = anchorable
    .map((anchored, order) => ({ anchored, order }))
    .sort((a, b) => SEVERITY_ORDER[a.anchored.finding.severity] - SEVERITY_ORDER[b.anchored.finding.severity] || a.order - b.order);
  const inline = ranked.slice(0, max).map((r) => r.anchored);
  const overflow = new Set(ranked.slice(max).map((r) => r.anchored.finding));
  // The summary keeps the order the model reported in, overflow included.
  const kept = findings.filter((f) => summary.includes(f) || overflow.has(f));
  return { inline, summary: kept };
}
