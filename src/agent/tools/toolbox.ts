import { type ToolSet, jsonSchema, tool } from 'ai';
import { AgentToolset } from '../agent-types.js';
import type { AgentTrees } from './agent-trees.js';
import { bashTool } from './bash.tool.js';
import { askTool, finishTool } from './control.tools.js';
import { editFileTool } from './edit-file.tool.js';
import { readFileTool } from './read-file.tool.js';
import { reportFindingTool } from './report-finding.tool.js';
import { searchTool } from './search.tool.js';
import { toJsonSchema, validateInput } from './tool-input.js';
import { type AgentTool, type ToolContext, type ToolInput, type ToolResult, toolError } from './tool-types.js';
import { writeFileTool } from './write-file.tool.js';

/** A tool call after it ran: the result, and the brief for the run's events. */
export interface ToolRun {
  result: ToolResult;
  brief: string;
}

const TOOLSETS: Record<AgentToolset, (trees: AgentTrees) => AgentTool[]> = {
  [AgentToolset.Code]: (trees) => [bashTool(trees), readFileTool(), writeFileTool(), editFileTool(), searchTool(), finishTool(), askTool()],
  [AgentToolset.Review]: (trees) => [bashTool(trees), readFileTool(), searchTool(), finishTool(), reportFindingTool()],
  [AgentToolset.ReadOnly]: (trees) => [bashTool(trees), readFileTool(), searchTool(), finishTool()],
};

/**
 * The tools of one session, built once (their schemas too: nothing is rebuilt per call).
 * `code`: bash, read_file, write_file, edit_file, search, finish, ask. `review`: bash, read_file,
 * search, finish, report_finding; no file-writing tool (whatever a command changes is discarded
 * with the sandbox).
 */
export class Toolbox {
  private readonly tools = new Map<string, AgentTool>();
  /** What the model is offered: descriptions and input schemas, no `execute` (the loop runs tools itself). */
  readonly definitions: ToolSet;

  /** `extra`: tools the caller adds to the toolset's (their names must not repeat one). */
  constructor(toolset: AgentToolset, trees: AgentTrees, extra: readonly AgentTool[] = []) {
    const list = [...TOOLSETS[toolset](trees), ...extra];
    const definitions: ToolSet = {};
    for (const t of list) {
      if (this.tools.has(t.name)) throw new Error(`two tools are named ${t.name}`);
      this.tools.set(t.name, t);
      // No `validate`: the SDK passes the input through and validateInput below says what is wrong, in our words.
      definitions[t.name] = tool({ description: t.description, inputSchema: jsonSchema<ToolInput>(toJsonSchema(t.parameters)) });
    }
    this.definitions = definitions;
  }

  get names(): string[] {
    return [...this.tools.keys()];
  }

  /** Runs one call. Never throws: an unknown tool, bad input or a failing sandbox is an error result. */
  async run(name: string, raw: unknown, invalid: string | null, context: ToolContext): Promise<ToolRun> {
    const t = this.tools.get(name);
    if (!t) return { result: toolError(`there is no tool ${name}; the tools are ${this.names.join(', ')}`), brief: `${name} (unknown tool)` };
    if (invalid !== null) return { result: toolError(`the input could not be read: ${invalid}`), brief: `${name} (invalid input)` };
    const checked = validateInput(t.parameters, raw);
    if ('error' in checked) return { result: toolError(checked.error), brief: `${name} (invalid input)` };
    const brief = t.brief(checked.input);
    try {
      return { result: await t.run(checked.input, context), brief };
    } catch (error) {
      if (context.signal.aborted) throw error;
      return { result: toolError(`${name} failed: ${(error as Error).message}`), brief };
    }
  }
}
