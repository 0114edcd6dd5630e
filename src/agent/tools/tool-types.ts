import type { AgentFinding, AgentOutcome } from '../agent-types.js';
import type { AgentTrees } from './agent-trees.js';

/** One parameter of a tool: the subset of JSON Schema our tools need (flat objects of strings, integers and lists of strings). */
export interface ToolParameter {
  type: 'string' | 'integer' | 'string-list';
  description: string;
  enum?: readonly string[];
  minimum?: number;
}

export interface ToolParameters {
  properties: Record<string, ToolParameter>;
  required: readonly string[];
}

/** Validated tool input: strings, integers and lists of strings by parameter name (absent optional ones are undefined). */
export type ToolInput = Record<string, string | number | string[] | undefined>;

/** What a tool run gives back to the loop. */
export interface ToolResult {
  /** The text the model reads (the loop scrubs it of secrets again before it leaves). */
  output: string;
  ok: boolean;
  /** The command's exit code (bash, search), null for tools that run none. */
  exitCode: number | null;
  /** The tool refused or could not do what was asked (the model sees an error result; a command that exits 1 is not one). */
  error?: boolean;
  /** Set by `finish` and `ask`: the step ends with it once the tool result is recorded. */
  end?: AgentOutcome;
}

/** What a tool may use while it runs. */
export interface ToolContext {
  trees: AgentTrees;
  /** Fires on cancel and when the step's time is up: commands are killed, waits end. */
  signal: AbortSignal;
  /** Epoch ms when the step's time is up: no command is given longer. */
  deadline: number;
  /** `report_finding` adds here. */
  findings: AgentFinding[];
  /** Removes every secret value from text (before it is cut, so a cut cannot leave half a secret). */
  scrub(text: string): string;
}

/** A tool offered to the model. Built once per session; `run` never throws (errors are results). */
export interface AgentTool {
  name: string;
  description: string;
  parameters: ToolParameters;
  /** A one-line view of the input for the run's events (`bash: npm test`). */
  brief(input: ToolInput): string;
  run(input: ToolInput, context: ToolContext): Promise<ToolResult>;
}

/** A failed tool call as the model reads it. */
export function toolError(message: string, exitCode: number | null = null): ToolResult {
  return { output: `Error: ${message}`, ok: false, exitCode, error: true };
}
