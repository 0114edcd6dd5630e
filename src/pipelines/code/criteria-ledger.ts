import type { CriterionReports } from '../../agent/tools/report-criterion.tool.js';
import type { CriteriaParse, Criterion, CriterionVerdict } from '../../criteria/criteria.js';
import type { RunCriteriaSink } from '../agent-run/agent-support.js';
import type { CriterionOutcome, PipelineStep, RunEventSink, StepContext, StepResult } from '../pipeline.js';
import { RunEventKind } from '../run-event-kind.js';

/**
 * One `code` run's acceptance criteria: taken from the ticket when the agent step reads it, kept
 * (through the sink: the database) with each verdict the agent reports, and checked at the end.
 * The run's own copy decides the check, so a verdict whose write failed still counts.
 */
export class CriteriaLedger implements CriterionReports {
  criteria: Criterion[] = [];
  private readonly verdicts = new Map<string, CriterionVerdict>();
  private events: RunEventSink | null = null;

  constructor(private readonly sink: RunCriteriaSink | undefined) {}

  /** The ticket's criteria, once per run (a repair round does not read them again). */
  async take(parse: CriteriaParse, context: StepContext): Promise<void> {
    this.events = context.events;
    if (this.criteria.length > 0 || parse.criteria.length === 0) return;
    this.criteria = parse.criteria;
    const left = parse.dropped > 0 ? `; ${parse.dropped} more listed were left out (at most ${parse.criteria.length} are taken)` : '';
    const cut = parse.clipped > 0 ? `; ${parse.clipped} cut to their first 500 characters` : '';
    context.events.emit(RunEventKind.Criteria, null, `${parse.criteria.length} acceptance criteria read from the ticket (${ids(parse.criteria)})${left}${cut}`);
    try {
      await this.sink?.capture(parse.criteria);
    } catch (error) {
      context.events.emit(RunEventKind.Criteria, null, `the criteria could not be recorded with the run: ${(error as Error).message}`);
    }
  }

  async report(id: string, verdict: CriterionVerdict, evidence: string): Promise<void> {
    this.verdicts.set(id, verdict);
    this.events?.emit(RunEventKind.Criteria, null, `${id}: ${verdict}`);
    try {
      await this.sink?.report(id, verdict, evidence);
    } catch (error) {
      this.events?.emit(RunEventKind.Criteria, null, `the verdict on ${id} could not be recorded with the run: ${(error as Error).message}`);
    }
  }

  outcomes(): CriterionOutcome[] {
    return this.criteria.map((c) => ({ id: c.id, text: c.text, verdict: this.verdicts.get(c.id) ?? null }));
  }
}

function ids(criteria: readonly Criterion[]): string {
  return criteria.length === 1 ? criteria[0]!.id : `${criteria[0]!.id}–${criteria.at(-1)!.id}`;
}

/**
 * The run's last step: every criterion must be reported `met` or `not_applicable`. Otherwise the
 * run fails with one line naming the others ("acceptance criteria not met: c2; not reported:
 * c3"), unless the project sets `criteria: {enforce: false}`; then they are only reported. A
 * run whose ticket has no criteria passes as before. Its result carries the verdicts, for the
 * pull request's body.
 */
export class CriteriaStep implements PipelineStep {
  readonly name = 'criteria';

  constructor(private readonly ledger: CriteriaLedger, private readonly enforce: boolean, private readonly summary: () => string | null) {}

  async run(context: StepContext): Promise<StepResult> {
    const outcomes = this.ledger.outcomes();
    const summary = this.summary() ?? undefined;
    if (outcomes.length === 0) return { ok: true, summary };
    const unmet = outcomes.filter((c) => c.verdict === 'unmet').map((c) => c.id);
    const unreported = outcomes.filter((c) => c.verdict === null).map((c) => c.id);
    if (unmet.length === 0 && unreported.length === 0) {
      context.events.emit(RunEventKind.Criteria, null, `all ${outcomes.length} acceptance criteria met or not applicable`);
      return { ok: true, summary, criteria: outcomes };
    }
    const line = failureLine(unmet, unreported);
    if (!this.enforce) {
      context.events.emit(RunEventKind.Criteria, null, `${line} (not enforced in this project: the run goes on)`);
      return { ok: true, summary, criteria: outcomes };
    }
    return { ok: false, error: line };
  }
}

/** "acceptance criteria not met: c2; not reported: c3", or "acceptance criteria not reported: c3". */
export function failureLine(unmet: readonly string[], unreported: readonly string[]): string {
  if (unmet.length === 0) return `acceptance criteria not reported: ${unreported.join(', ')}`;
  return `acceptance criteria not met: ${unmet.join(', ')}${unreported.length > 0 ? `; not reported: ${unreported.join(', ')}` : ''}`;
}
