import { describe, expect, it } from 'vitest';
import { reportCriterionTool } from '../../agent/tools/report-criterion.tool.js';
import type { ToolContext } from '../../agent/tools/tool-types.js';
import { numberCriteria } from '../../criteria/criteria.js';
import type { StepContext } from '../pipeline.js';
import { CriteriaLedger, CriteriaStep, failureLine } from './criteria-ledger.js';

function context(): StepContext & { lines: string[] } {
  const lines: string[] = [];
  return {
    runId: 'r', pipeline: 'code', sandboxes: [], deadline: Date.now() + 60_000, signal: new AbortController().signal,
    events: { emit: (_kind, _sandbox, text) => void lines.push(text) }, lines,
  };
}

const toolContext = { scrub: (t: string) => t.replace('SECRET', '***') } as unknown as ToolContext;

describe('the criteria ledger, report_criterion and the check at the end of a code run', () => {
  it('records reports through the sink, refuses an unknown id, and fails naming what is unmet and unreported', async () => {
    const recorded: string[] = [];
    const ledger = new CriteriaLedger({ capture: async (c) => void recorded.push(`capture ${c.length}`), report: async (id, v, e) => void recorded.push(`${id} ${v} ${e}`) });
    const ctx = context();
    await ledger.take(numberCriteria(['one', 'two', 'three']), ctx);
    const tool = reportCriterionTool(ledger);
    expect((await tool.run({ id: 'c9', verdict: 'met', evidence: 'x' }, toolContext))).toMatchObject({ ok: false, error: true, output: expect.stringContaining('c1, c2, c3') });
    expect((await tool.run({ id: 'c1', verdict: 'met', evidence: 'holds SECRET' }, toolContext)).ok).toBe(true);
    await tool.run({ id: 'c2', verdict: 'unmet', evidence: 'no' }, toolContext);
    expect(recorded).toEqual(['capture 3', 'c1 met holds ***', 'c2 unmet no']);
    const failed = await new CriteriaStep(ledger, true, () => 'summary').run(ctx);
    expect(failed).toEqual({ ok: false, error: 'acceptance criteria not met: c2; not reported: c3' });
    // Not enforced: the run goes on, the verdicts travel with the result (for the pull request).
    const relaxed = await new CriteriaStep(ledger, false, () => 'summary').run(ctx);
    expect(relaxed).toEqual({ ok: true, summary: 'summary', criteria: [
      { id: 'c1', text: 'one', verdict: 'met' }, { id: 'c2', text: 'two', verdict: 'unmet' }, { id: 'c3', text: 'three', verdict: null },
    ] });
    expect(ctx.lines.at(-1)).toContain('not enforced');
  });

  it('a later report replaces an earlier one; all met or not applicable passes; no criteria passes as before', async () => {
    const ledger = new CriteriaLedger(undefined);
    await ledger.take(numberCriteria(['one', 'two']), context());
    await ledger.report('c1', 'unmet', 'first look');
    await ledger.report('c1', 'met', 'second look');
    await ledger.report('c2', 'not_applicable', 'out of scope');
    expect(await new CriteriaStep(ledger, true, () => null).run(context())).toMatchObject({ ok: true });
    expect(await new CriteriaStep(new CriteriaLedger(undefined), true, () => 's').run(context())).toEqual({ ok: true, summary: 's' });
  });

  it('says unreported criteria alone as such', () => {
    expect(failureLine([], ['c1', 'c4'])).toBe('acceptance criteria not reported: c1, c4');
    expect(failureLine(['c2'], [])).toBe('acceptance criteria not met: c2');
  });
});
