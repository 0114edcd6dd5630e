import { describe, expect, it } from 'vitest';
import type { AgentFinding } from '../../agent/agent-types.js';
import type { PullRequestFile } from '../../platforms/pull-request-review.js';
import { placeFindings } from './review-placement.js';

const file = (path: string, changedLines: number[]): PullRequestFile => ({ path, previousPath: null, status: 'modified', changedLines, patch: '' });
const finding = (path: string, line: number, severity: AgentFinding['severity'] = 'medium', endLine: number | null = null): AgentFinding =>
  ({ path, line, endLine, severity, title: `${path}:${line}`, detail: 'd', suggestion: null });
const files = [file('src/a.ts', [3, 4, 5, 10]), file('src/b.ts', [1])];
const same = (path: string) => path;

describe('placeFindings', () => {
  it('anchors findings on changed new-side lines and sends the rest to the summary', () => {
    const onChanged = finding('src/a.ts', 4);
    const unchangedLine = finding('src/a.ts', 7);
    const outsideDiff = finding('src/c.ts', 1);
    const placed = placeFindings([onChanged, unchangedLine, outsideDiff], files, same);
    expect(placed.inline).toEqual([{ finding: onChanged, path: 'src/a.ts', line: 4, endLine: null }]);
    expect(placed.summary).toEqual([unchangedLine, outsideDiff]);
  });

  it('keeps a range only when every line of it changed', () => {
    const whole = finding('src/a.ts', 3, 'low', 5);
    const gap = finding('src/a.ts', 5, 'low', 10);
    const placed = placeFindings([whole, gap], files, same);
    expect(placed.inline.map((a) => [a.line, a.endLine])).toEqual([[3, 5], [5, null]]);
  });

  it('posts at most the limit inline, the most severe first, and the overflow in the summary', () => {
    const many = Array.from({ length: 30 }, (_, i) => finding('src/a.ts', 3, i === 29 ? 'critical' : 'info'));
    const placed = placeFindings(many, files, same);
    expect(placed.inline).toHaveLength(25);
    expect(placed.inline[0]!.finding.severity).toBe('critical');
    expect(placed.summary).toHaveLength(5);
    expect(placed.summary.every((f) => f.severity === 'info')).toBe(true);
  });

  it("leaves out another repository's findings in a multi-repository run", () => {
    const pathIn = (path: string) => (path.startsWith('web/') ? path.slice(4) : null);
    const placed = placeFindings([finding('web/src/b.ts', 1), finding('api/src/b.ts', 1)], files, pathIn);
    expect(placed.inline.map((a) => a.path)).toEqual(['src/b.ts']);
    expect(placed.summary).toEqual([]);
  });
});
