import type { AgentTrees } from './agent-trees.js';
import { commandTimeout, describeEnd, outputForModel, runInSandbox } from './sandbox-run.js';
import { type AgentTool, type ToolParameters, toolError } from './tool-types.js';

/** What the model reads of a command's output: enough for a failing test run, little enough for the context. */
export const BASH_OUTPUT_MAX_CHARS = 30_000;
const DEFAULT_TIMEOUT_S = 300;

/**
 * `bash {command, timeout_seconds?}`: a shell command in the tree's working directory, stdout and
 * stderr interleaved, cut to head and tail, the exit code reported.
 *
 * Deviation from the contract's signature, for multi-repository runs only: each repository is
 * its own sandbox, so a command must say which one it runs in. With several trees the tool takes
 * a required `repo` (one of the repository names); with one tree it is not offered.
 */
export function bashTool(trees: AgentTrees): AgentTool {
  const parameters: ToolParameters = {
    properties: {
      command: { type: 'string', description: 'The shell command (/bin/sh -c), run in the working tree.' },
      timeout_seconds: { type: 'integer', minimum: 1, description: `Seconds before the command is killed (default ${DEFAULT_TIMEOUT_S}; never past the step's time).` },
      ...(trees.multi ? { repo: { type: 'string' as const, enum: trees.prefixes, description: 'The repository whose working tree the command runs in.' } } : {}),
    },
    required: trees.multi ? ['command', 'repo'] : ['command'],
  };
  return {
    name: 'bash',
    description:
      'Run a shell command in the working tree and get its output (stdout and stderr interleaved; long output keeps its head and tail) and exit code.'
      + (trees.multi ? ' `repo` names the repository to run in.' : ''),
    parameters,
    brief: (input) => `bash: ${trees.multi ? `[${String(input.repo)}] ` : ''}${firstLine(String(input.command))}`,
    async run(input, context) {
      const tree = context.trees.tree(input.repo as string | undefined);
      if ('error' in tree) return toolError(tree.error);
      const timeoutMs = commandTimeout(((input.timeout_seconds as number | undefined) ?? DEFAULT_TIMEOUT_S) * 1000, context.deadline);
      const run = await runInSandbox(tree.sandbox, String(input.command), { timeoutMs, signal: context.signal });
      const output = outputForModel(run, BASH_OUTPUT_MAX_CHARS, context.scrub);
      const end = describeEnd(run, timeoutMs);
      return { output: `${output}${output ? '\n' : ''}[${end}]`, ok: run.exitCode === 0, exitCode: run.exitCode };
    },
  };
}

function firstLine(text: string): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  const more = text.trim().includes('\n') ? ' …' : '';
  return line.length > 120 ? `${line.slice(0, 119)}…` : `${line}${more}`;
}
