import { readFileBytes, writeFile } from './file-io.js';
import { commandTimeout } from './sandbox-run.js';
import { type AgentTool, type ToolParameters, toolError } from './tool-types.js';

const FILE_TOOL_TIMEOUT_MS = 60_000;

const PARAMETERS: ToolParameters = {
  properties: {
    path: { type: 'string', description: 'The file, relative to the working tree.' },
    old_text: { type: 'string', description: 'Text that occurs exactly once in the file (include enough context to make it unique).' },
    new_text: { type: 'string', description: 'What replaces it.' },
  },
  required: ['path', 'old_text', 'new_text'],
};

/**
 * `edit_file {path, old_text, new_text}`: replaces the one occurrence of `old_text`. Refused, the
 * file untouched, when it occurs zero times or several (saying how many), so an edit never lands
 * somewhere the model did not mean. The file's bytes are read and written exactly.
 */
export function editFileTool(): AgentTool {
  return {
    name: 'edit_file',
    description: 'Replace old_text with new_text in a file; old_text must occur exactly once.',
    parameters: PARAMETERS,
    brief: (input) => `edit_file: ${String(input.path)}`,
    async run(input, context) {
      const where = context.trees.resolve(String(input.path));
      if ('error' in where) return toolError(where.error);
      const oldText = String(input.old_text);
      if (oldText === '') return toolError('old_text is empty: give the text to replace (write_file replaces a whole file)');
      const options = { timeoutMs: commandTimeout(FILE_TOOL_TIMEOUT_MS, context.deadline), signal: context.signal };
      const read = await readFileBytes(where.tree.sandbox, where.relative, options);
      if (!read.ok) return toolError(`${where.shown}: ${read.error}`);
      const text = read.value.bytes.toString('utf8');
      if (!Buffer.from(text, 'utf8').equals(read.value.bytes)) return toolError(`${where.shown} is not UTF-8 text; edit it with bash`);
      const count = occurrences(text, oldText);
      if (count === 0) return toolError(`old_text occurs 0 times in ${where.shown}; nothing was changed (read the file and copy the text exactly)`);
      if (count > 1) return toolError(`old_text occurs ${count} times in ${where.shown}; nothing was changed (add surrounding lines so it occurs once)`);
      const at = text.indexOf(oldText);
      const updated = Buffer.from(text.slice(0, at) + String(input.new_text) + text.slice(at + oldText.length), 'utf8');
      try {
        await writeFile(where.tree.sandbox, where.relative, updated, read.value.mode);
      } catch (error) {
        return toolError(`${where.shown} could not be written: ${(error as Error).message}`);
      }
      const line = text.slice(0, at).split('\n').length;
      return { output: `Edited ${where.shown} at line ${line}.`, ok: true, exitCode: null };
    },
  };
}

/** Occurrences of `needle` (not empty), overlapping ones counted: `aa` is ambiguous in `aaa`. */
function occurrences(text: string, needle: string): number {
  let n = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) n += 1;
  return n;
}
