import { type AgentFinding, type AgentOutcome, AgentToolset } from '../../agent/agent-types.js';
import { buildContextsBrief } from '../../agent/prompt/contexts-brief.js';
import { buildReviewPrompt } from '../../agent/prompt/review-prompt.js';
import { clipText } from '../../common/clip-text.js';
import { scrubSecrets } from '../../common/secret-scrubber.js';
import type { PullRequestDiff, PullRequestReviews } from '../../platforms/pull-request-review.js';
import { AgentRun, agentTrees } from '../agent-run/agent-session.js';
import type { AgentRunSupport } from '../agent-run/agent-support.js';
import { ContextsGateStep } from '../agent-run/contexts-gate.step.js';
import type { RepositoryContext } from '../contexts/index.js';
import type { Pipeline, PipelineStep, RunSandbox, StepContext, StepResult } from '../pipeline.js';
import { RunEventKind } from '../run-event-kind.js';
import { placeFindings } from './review-placement.js';
import { REVIEW_MARKER, inlineCommentBody, reviewSummaryBody } from './review-texts.js';

/** Reading diffs and posting reviews get this much on top of the agent's step. */
const HOST_ALLOWANCE_MS = 10 * 60_000;

/** One pull request of the run: its sandbox, host and diff. */
interface Reviewed {
  entry: RunSandbox & { pullRequest: NonNullable<RunSandbox['pullRequest']> };
  host: PullRequestReviews;
  diff: PullRequestDiff;
  /** The path prefix the model uses for this repository (multi-repository runs), else null. */
  prefix: string | null;
}

class ReviewRun {
  contexts: RepositoryContext[] = [];
  reviewed: Reviewed[] = [];
  findings: AgentFinding[] = [];
  assessment = '';
  readonly agent: AgentRun;

  constructor(readonly support: AgentRunSupport, readonly project: string, pipeline: string) {
    this.agent = new AgentRun(support, pipeline);
  }
}

/** Reads each pull request's diff from its host, then lets the model review it with read-only tools. */
class ReviewStep implements PipelineStep {
  readonly name = 'review';
  constructor(private readonly state: ReviewRun) {}

  async run(context: StepContext): Promise<StepResult> {
    const { support } = this.state;
    const entries = context.sandboxes.filter((s): s is Reviewed['entry'] => s.pullRequest !== undefined && s.repo !== null);
    if (entries.length === 0) return { ok: false, error: 'pr-review needs a pull request: the run has none (start it from a pull request, or for a ticket with an open pull request)' };
    if (!support.reviewsFor) return { ok: false, error: 'pr-review cannot reach the code host here (no review client)' };
    const trees = agentTrees(context.sandboxes);
    for (const entry of entries) {
      const host = support.reviewsFor(entry.repo!);
      let diff: PullRequestDiff;
      try {
        diff = await host.diff(entry.pullRequest.number);
      } catch (error) {
        return { ok: false, error: `reading the diff of pull request #${entry.pullRequest.number} of ${entry.repo!.name} failed: ${(error as Error).message}` };
      }
      const prefix = trees.find((t) => t.sandbox === entry.sandbox)?.prefix ?? null;
      this.state.reviewed.push({ entry, host, diff, prefix });
      context.events.emit(RunEventKind.Agent, entry.sandbox.name, `pull request #${entry.pullRequest.number}: ${diff.files.length} changed file(s)${diff.truncated ? ' (the host listed no more)' : ''}`);
    }
    const prompt = buildReviewPrompt(
      this.state.reviewed.map(({ entry, diff, prefix }) => ({
        prefix, number: entry.pullRequest.number, title: entry.pullRequest.title, body: entry.pullRequest.body,
        head: entry.pullRequest.head, base: entry.pullRequest.base, files: diff.files, truncated: diff.truncated,
      })),
      buildContextsBrief(this.state.contexts, { secrets: support.secrets }),
      support.secrets,
    );
    const session = await this.state.agent.session(context, AgentToolset.Review, trees);
    const outcome = await session.send(scrubSecrets(prompt, support.secrets));
    this.state.agent.close(session);
    this.state.findings = [...session.findings];
    return ended(outcome, this.state, context);
  }
}

function ended(outcome: AgentOutcome, run: ReviewRun, context: StepContext): StepResult {
  switch (outcome.kind) {
    case 'finished':
      run.assessment = outcome.summary.trim();
      context.events.emit(RunEventKind.Agent, null, `the review finished with ${run.findings.length} finding(s)`);
      return { ok: true };
    case 'asked':
      return { ok: false, error: `the review agent asked instead of reviewing: ${oneLine(outcome.question)}` };
    case 'budget':
    case 'cancelled':
      return { ok: false, error: `the review agent was stopped: ${oneLine(outcome.reason)}` };
    case 'failed':
      return { ok: false, error: `the model call failed: ${oneLine(outcome.error)}` };
  }
}

/** Posts one review per pull request: findings on changed lines inline (at most 25), the rest in the summary. */
class PublishReviewStep implements PipelineStep {
  readonly name = 'post-review';
  constructor(private readonly state: ReviewRun) {}

  async run(context: StepContext): Promise<StepResult> {
    const { secrets } = this.state.support;
    const problems: string[] = [];
    const posted: string[] = [];
    for (const { entry, host, diff, prefix } of this.state.reviewed) {
      const number = entry.pullRequest.number;
      const pathIn = (path: string): string | null => {
        if (prefix === null) return path;
        return path.startsWith(`${prefix}/`) ? path.slice(prefix.length + 1) : null;
      };
      const placement = placeFindings(this.state.findings, diff.files, pathIn);
      const review = {
        summary: reviewSummaryBody({
          assessment: this.state.assessment,
          inline: placement.inline.length,
          others: placement.summary,
          total: this.state.findings.filter((f) => pathIn(f.path) !== null),
          truncated: diff.truncated,
          secrets,
        }),
        comments: placement.inline.map((a) => ({ path: a.path, line: a.line, endLine: a.endLine, body: inlineCommentBody(a.finding, secrets) })),
      };
      try {
        const result = await host.postReview(number, review, REVIEW_MARKER);
        const text = `pull request #${number}: review posted, ${result.anchored} inline comment(s)${result.unanchored ? `, ${result.unanchored} as plain notes` : ''}, ${placement.summary.length} finding(s) in the summary${result.replaced ? `; the previous review's ${result.replaced} comment(s) replaced` : ''}`;
        context.events.emit(RunEventKind.Publish, entry.sandbox.name, text);
        posted.push(text);
      } catch (error) {
        problems.push(`posting the review on pull request #${number} of ${entry.repo!.name} failed: ${(error as Error).message}`);
      }
    }
    if (problems.length > 0) return { ok: false, error: problems.join('; ') };
    return { ok: true, summary: posted.join('; ') };
  }
}

function oneLine(text: string): string {
  return clipText(text.replace(/\s+/g, ' ').trim(), 300);
}

/**
 * The built-in `pr-review` pipeline: gate → review (diff from the host, the model with read-only
 * tools reporting findings) → post-review (by the server, never approving or requesting
 * changes). Nothing in the sandbox is published.
 */
export function prReviewPipeline(support: AgentRunSupport, project: string, name = 'pr-review'): Pipeline {
  const run = new ReviewRun(support, project, name);
  return {
    name,
    steps: [new ContextsGateStep(project, (contexts) => { run.contexts = contexts; }), new ReviewStep(run), new PublishReviewStep(run)],
    timeoutMs: support.agent.step_timeout_seconds * 1000 + HOST_ALLOWANCE_MS,
  };
}
