import { CRITERION_VERDICTS, type Criterion, type CriterionVerdict, MAX_EVIDENCE_CHARS } from '../../criteria/criteria.js';
import { clipText } from '../../common/clip-text.js';
import { clip } from './control.tools.js';
import { type AgentTool, toolError } from './tool-types.js';

/** Where `report_criterion` records a verdict (the code pipeline's criteria ledger). */
export interface CriterionReports {
  readonly criteria: readonly Criterion[];
  report(id: string, verdict: CriterionVerdict, evidence: string): Promise<void>;
}

/**
 * `report_criterion {id, verdict, evidence}` (`code`, offered when the ticket has acceptance
 * criteria): the agent's verdict on one criterion, by the id the service gave it. An id the run
 * does not have is a tool error naming the ones it has; reporting again replaces the verdict.
 */
export function reportCriterionTool(reports: CriterionReports): AgentTool {
  const ids = reports.criteria.map((c) => c.id);
  return {
    name: 'report_criterion',
    description: `Report whether one acceptance criterion of the ticket is met, by its id (${ids.length === 1 ? ids[0] : `${ids[0]}…${ids.at(-1)}`}). `
      + 'Call once per criterion before finish; a later report of the same id replaces the earlier one.',
    parameters: {
      properties: {
        id: { type: 'string', description: 'The criterion\'s id as listed with the ticket (c1, c2, …).' },
        verdict: { type: 'string', enum: CRITERION_VERDICTS, description: 'met, unmet or not_applicable.' },
        evidence: { type: 'string', description: 'What shows it: the test, command output or code that proves the verdict.' },
      },
      required: ['id', 'verdict', 'evidence'],
    },
    brief: (input) => `report_criterion: ${clip(String(input.id), 20)} ${String(input.verdict)}`,
    run: async (input, context) => {
      const id = String(input.id).trim();
      if (!ids.includes(id)) return toolError(`there is no criterion ${clip(id, 40)}; this ticket's criteria are ${ids.join(', ')}`);
      const evidence = clipText(context.scrub(String(input.evidence)).trim(), MAX_EVIDENCE_CHARS);
      await reports.report(id, input.verdict as CriterionVerdict, evidence);
      return { output: `Recorded ${id}: ${String(input.verdict)}.`, ok: true, exitCode: null };
    },
  };
}
