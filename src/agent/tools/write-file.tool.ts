import { prepareWrite, writeFile } from './file-io.js';
import { commandTimeout } from './sandbox-run.js';
import { type AgentTool, type ToolParameters, toolError } from './tool-types.js';

const FILE_TOOL_TIMEOUT_MS = 60_000;

const PARAMETERS: ToolParameters = {
  properties: {
    path: { type: 'string', description: 'The file, relative to the working tree; parent directories are created.' },
    content: { type: 'string', description: 'The whole new content of the file.' },
  },
  required: ['path', 'content'],
};

/** `write_file {path, content}`: creates or replaces a file (an existing file keeps its mode). */
export function writeFileTool(): AgentTool {
  return {
    name: 'write_file',
    description: 'Create or overwrite a file with the given content (parent directories are created).',
    parameters: PARAMETERS,
    brief: (input) => `write_file: ${String(input.path)}`,
    async run(input, context) {
      const where = context.trees.resolve(String(input.path));
      if ('error' in where) return toolError(where.error);
      const options = { timeoutMs: commandTimeout(FILE_TOOL_TIMEOUT_MS, context.deadline), signal: context.signal };
      const state = await prepareWrite(where.tree.sandbox, where.relative, options);
      if (!state.ok) return toolError(`${where.shown}: ${state.error}`);
      const content = Buffer.from(String(input.content), 'utf8');
      try {
        await writeFile(where.tree.sandbox, where.relative, content, state.value.mode);
      } catch (error) {
        return toolError(`${where.shown} could not be written: ${(error as Error).message}`);
      }
      return { output: `${state.value.exists ? 'Replaced' : 'Created'} ${where.shown} (${content.length} bytes).`, ok: true, exitCode: null };
    },
  };
}
