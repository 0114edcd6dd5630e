import type { AgentFinding } from '../../agent/agent-types.js';
import { clipText } from '../../common/clip-text.js';
import { scrubSecrets } from '../../common/secret-scrubber.js';
import { SERVICE_MARKER } from '../../platforms/service-marker.js';

/** Marks the comments of the service's review, so a re-review replaces them (with SERVICE_MARKER, which keeps them from starting anything). */
export const REVIEW_MARKER = '<!-- pipeline-service:pr-review -->';

const SEVERITY_LABEL: Record<AgentFinding['severity'], string> = { critical: 'Critical', high: 'High', medium: 'Medium', low: 'Low', info: 'Info' };

function markers(): string {
  return `\n\n${SERVICE_MARKER}\n${REVIEW_MARKER}`;
}

/**
 * Model text in a comment: secrets scrubbed, bounded, and without what a host would act on
 * (`@mentions` notify people, a pasted marker would make the text look like the service's).
 */
function modelText(text: string, secrets: readonly string[], max: number): string {
  const clean = scrubSecrets(text, secrets).replace(/<!--[\s\S]*?-->/g, '').replace(/(^|\s)@(?=[A-Za-z0-9])/g, '$1@\u200b');
  return clipText(clean.trim(), max);
}

/** One inline comment: severity and title, the explanation, the suggested change. */
export function inlineCommentBody(finding: AgentFinding, secrets: readonly string[]): string {
  const out = [`**${SEVERITY_LABEL[finding.severity]}: ${modelText(finding.title, secrets, 200)}**`, '', modelText(finding.detail, secrets, 4000)];
  if (finding.suggestion) out.push('', `**Suggested change:** ${modelText(finding.suggestion, secrets, 4000)}`);
  return out.join('\n') + markers();
}

export interface SummaryInput {
  assessment: string;
  inline: number;
  /** Findings not anchored inline (outside the diff, or beyond the limit). */
  others: readonly AgentFinding[];
  /** Findings of every repository reviewed, for the counts. */
  total: readonly AgentFinding[];
  truncated: boolean;
  secrets: readonly string[];
}

/** The review's summary: the assessment, counts by severity, and every finding not posted inline. */
export function reviewSummaryBody(input: SummaryInput): string {
  const { secrets } = input;
  const counts = (['critical', 'high', 'medium', 'low', 'info'] as const)
    .map((s) => [s, input.total.filter((f) => f.severity === s).length] as const)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${n} ${s}`);
  const out = ['### Review by pipeline-service', '', modelText(input.assessment || 'The review found nothing to add.', secrets, 4000), ''];
  out.push(counts.length === 0 ? 'No findings.' : `Findings: ${counts.join(', ')}; ${input.inline} posted on the changed lines.`);
  if (input.truncated) out.push('', 'The host listed only part of the changed files; the review covered what it listed.');
  if (input.others.length > 0) {
    out.push('', '#### Other findings', '');
    for (const f of input.others) {
      const at = f.endLine ? `${f.path}:${f.line}-${f.endLine}` : `${f.path}:${f.line}`;
      out.push(`- **${SEVERITY_LABEL[f.severity]}** \`${modelText(at, secrets, 300).replace(/`/g, '')}\`: ${modelText(f.title, secrets, 200)}. ${modelText(f.detail, secrets, 1500)}`
        + (f.suggestion ? ` Suggested change: ${modelText(f.suggestion, secrets, 1500)}` : ''));
    }
  }
  out.push('', '_This review comments only; it neither approves nor requests changes._');
  return out.join('\n') + markers();
}
