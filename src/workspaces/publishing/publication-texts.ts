import { SERVICE_MARKER } from '../../platforms/service-marker.js';
import { scrubSecrets } from '../../common/secret-scrubber.js';

/** What the run is, for the texts it leaves behind. */
export interface RunFacts {
  runId: string;
  pipeline: string;
  ticket: string;
  /** The ticket's title (null when the tracker could not be read). */
  title: string | null;
  /** The ticket's web page, when known. */
  ticketUrl: string | null;
}

export interface PublishedPullRequest {
  repo: string;
  url: string;
  number: number;
}

/** One line, no control characters: a title is the ticket's own text and may carry anything. */
function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').replace(/\s+/g, ' ').trim();
}

/** The ticket's title, or a stand-in naming the ticket when it has none (or could not be read). */
export function titleOf(facts: RunFacts): string {
  const title = facts.title === null ? '' : oneLine(facts.title);
  return title.length > 0 ? title.slice(0, 240) : `Ticket ${facts.ticket}`;
}

/** Contract: `<pipeline>: <ticket title> (<ticket>)`, trailers `Run-Id` and `Pipeline`. */
export function commitMessage(facts: RunFacts): string {
  return `${facts.pipeline}: ${titleOf(facts)} (${facts.ticket})\n\nRun-Id: ${facts.runId}\nPipeline: ${facts.pipeline}\n`;
}

/** Contract: `[wip] <pipeline> run <runId>`, trailers `Run-Id`, `Pipeline`, `Failed-Step`. */
export function wipCommitMessage(facts: RunFacts, failedStep: string | null): string {
  const step = oneLine(failedStep ?? 'unknown').slice(0, 200) || 'unknown';
  return `[wip] ${facts.pipeline} run ${facts.runId}\n\nRun-Id: ${facts.runId}\nPipeline: ${facts.pipeline}\nFailed-Step: ${step}\n`;
}

/** What a criterion is shown with in a pull request's body. */
export interface CriterionLine {
  id: string;
  text: string;
  verdict: string | null;
}

/** The criteria section's bound: with the summary's, the body stays under Azure DevOps's 4,000 characters. */
const MAX_CRITERIA_CHARS = 1000;
const CRITERION_TEXT_CHARS = 100;
const VERDICT_TEXT: Readonly<Record<string, string>> = { met: 'met', unmet: 'NOT met', not_applicable: 'not applicable' };

/** One line per criterion, `- c1 (met): text`, cut to a bound with a note saying how many more the run holds. */
export function criteriaSection(criteria: readonly CriterionLine[], secrets: readonly string[]): string[] {
  if (criteria.length === 0) return [];
  const lines = ['', '**Acceptance criteria**', ''];
  let used = 0;
  for (const [i, c] of criteria.entries()) {
    const chars = Array.from(oneLine(scrubSecrets(c.text, secrets)));
    const text = chars.length > CRITERION_TEXT_CHARS ? `${chars.slice(0, CRITERION_TEXT_CHARS - 1).join('')}…` : chars.join('');
    const line = `- ${c.id} (${c.verdict === null ? 'not reported' : VERDICT_TEXT[c.verdict] ?? c.verdict}): ${text}`;
    if (used + line.length > MAX_CRITERIA_CHARS) {
      lines.push(`- … and ${criteria.length - i} more: the run lists them all`);
      break;
    }
    lines.push(line);
    used += line.length + 1;
  }
  return lines;
}

/** Longest summary kept in a body: hosts cap bodies (Azure DevOps at 4,000 characters). */
const MAX_SUMMARY_CHARS = 2500;

/**
 * The pull request's body (Markdown on all three hosts): the service marker, the ticket, the run,
 * the ticket's other pull requests, the acceptance criteria with their verdicts, then what the run did (secrets scrubbed, cut to a bound).
 * The essentials come first, so a host that cuts a long body keeps them.
 */
export function pullRequestBody(
  facts: RunFacts, summary: string, related: readonly PublishedPullRequest[], secrets: readonly string[], criteria: readonly CriterionLine[] = [],
): string {
  const ticket = facts.ticketUrl ? `[${facts.ticket}](${facts.ticketUrl})` : `\`${facts.ticket}\``;
  const lines = [
    SERVICE_MARKER,
    `- Ticket: ${ticket}`,
    `- Run: \`${facts.runId}\` (pipeline \`${facts.pipeline}\`)`,
  ];
  if (related.length > 0) lines.push('- Related pull requests:', ...related.map((pr) => `  - ${pr.repo}: ${pr.url}`));
  lines.push(...criteriaSection(criteria, secrets));
  const text = scrubSecrets(summary.trim() || `The ${facts.pipeline} pipeline changed this repository.`, secrets);
  const chars = Array.from(text);
  lines.push('', chars.length > MAX_SUMMARY_CHARS ? `${chars.slice(0, MAX_SUMMARY_CHARS).join('')}\n\n… (summary cut; the run's events hold it whole)` : text);
  return `${lines.join('\n')}\n`;
}
