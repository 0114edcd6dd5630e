import { FindingSeverity } from '../agent-types.js';
import { clip } from './control.tools.js';
import { type AgentTool, toolError } from './tool-types.js';

const SEVERITIES: readonly string[] = Object.values(FindingSeverity);

/**
 * `report_finding {path, line, end_line?, severity, title, detail, suggestion?}` (review toolset):
 * collected into the session's findings, in the order reported. `path` is checked like any tool
 * path (relative, inside the trees; prefixed by the repository in a multi-repository run) and kept
 * as the model gave it, normalised; `line` counts on the new side.
 */
export function reportFindingTool(): AgentTool {
  return {
    name: 'report_finding',
    description: 'Report one finding (a defect, vulnerability or risk) at a place in the code; call once per finding.',
    parameters: {
      properties: {
        path: { type: 'string', description: 'The file, relative to the working tree.' },
        line: { type: 'integer', minimum: 1, description: 'The first line concerned (new side of the change).' },
        end_line: { type: 'integer', minimum: 1, description: 'The last line concerned, when more than one.' },
        severity: { type: 'string', enum: SEVERITIES, description: 'critical, high, medium, low or info.' },
        title: { type: 'string', description: 'One line.' },
        detail: { type: 'string', description: 'What is wrong and why it matters.' },
        suggestion: { type: 'string', description: 'How to fix it.' },
      },
      required: ['path', 'line', 'severity', 'title', 'detail'],
    },
    brief: (input) => `report_finding: ${String(input.severity)} ${String(input.path)}:${String(input.line)} ${clip(String(input.title), 80)}`,
    run: async (input, context) => {
      const where = context.trees.resolve(String(input.path));
      if ('error' in where) return toolError(where.error);
      const line = input.line as number;
      const endLine = (input.end_line as number | undefined) ?? null;
      if (endLine !== null && endLine < line) return toolError(`end_line ${endLine} is before line ${line}`);
      context.findings.push({
        path: where.shown,
        line,
        endLine,
        severity: input.severity as FindingSeverity,
        title: context.scrub(String(input.title)),
        detail: context.scrub(String(input.detail)),
        suggestion: input.suggestion === undefined ? null : context.scrub(String(input.suggestion)),
      });
      return { output: `Recorded finding ${context.findings.length}.`, ok: true, exitCode: null };
    },
  };
}
