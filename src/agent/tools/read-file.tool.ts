import { ESCAPE_EXIT, confine } from './shell.js';
import { commandTimeout, runInSandbox } from './sandbox-run.js';
import { cutOutput } from '../output-cut.js';
import { type AgentTool, type ToolParameters, toolError } from './tool-types.js';

/** Lines shown per call when no range is asked; the model reads on with start_line. */
const MAX_LINES = 2000;
/** A line longer than this (minified code, data) is clipped. */
const MAX_LINE_CHARS = 2000;
const MAX_CHARS = 100_000;
const FILE_TOOL_TIMEOUT_MS = 60_000;

const PARAMETERS: ToolParameters = {
  properties: {
    path: { type: 'string', description: 'The file, relative to the working tree.' },
    start_line: { type: 'integer', minimum: 1, description: 'First line to show (1-based; default 1).' },
    end_line: { type: 'integer', minimum: 1, description: `Last line to show (default: ${MAX_LINES} lines from start_line).` },
  },
  required: ['path'],
};

/**
 * `read_file {path, start_line?, end_line?}`: the file's lines, numbered, at most MAX_LINES per
 * call, with a last line saying how many the file has and how to read on. The range is cut in the
 * sandbox (sed), so a huge file never crosses whole.
 */
export function readFileTool(): AgentTool {
  return {
    name: 'read_file',
    description: `Read a text file's lines, numbered (at most ${MAX_LINES} per call; use start_line/end_line for more).`,
    parameters: PARAMETERS,
    brief: (input) => `read_file: ${String(input.path)}${input.start_line || input.end_line ? ` ${input.start_line ?? 1}-${input.end_line ?? ''}` : ''}`,
    async run(input, context) {
      const where = context.trees.resolve(String(input.path));
      if ('error' in where) return toolError(where.error);
      const start = (input.start_line as number | undefined) ?? 1;
      const end = Math.min((input.end_line as number | undefined) ?? start + MAX_LINES - 1, start + MAX_LINES - 1);
      if (end < start) return toolError(`end_line ${end} is before start_line ${start}`);
      const script = [
        confine(where.relative),
        `[ -e "$t" ] || { echo "no such file" >&2; exit 3; }`,
        `[ -d "$t" ] && { echo "it is a directory" >&2; exit 3; }`,
        `[ -s "$t" ] && ! grep -qI '' "$t" && { echo "it is a binary file" >&2; exit 3; }`,
        // The count first, on a line of its own: awk counts a last line without a newline too.
        `awk 'END { print NR }' "$t" || exit 4`,
        `sed -n '${start},${end}p' "$t"`,
      ].join('\n');
      const run = await runInSandbox(where.tree.sandbox, script, {
        timeoutMs: commandTimeout(FILE_TOOL_TIMEOUT_MS, context.deadline),
        signal: context.signal,
        keepChars: 0,
        keepLines: true,
      });
      const stderr = run.lines.filter((l) => l.stream === 'stderr').map((l) => l.line).join(' ');
      if (run.exitCode === ESCAPE_EXIT || run.exitCode === 3) return toolError(`${where.shown}: ${stderr || 'cannot be read'}`);
      if (run.exitCode !== 0) return toolError(`${where.shown} could not be read (${stderr || `exit ${run.exitCode}`})`);
      const stdout = run.lines.filter((l) => l.stream === 'stdout');
      const total = Number(stdout[0]?.line ?? 0);
      const numbered = stdout.slice(1).map(({ line }, i) => `${start + i}\t${line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… [line clipped]` : line}`);
      const shownEnd = start + numbered.length - 1;
      let text = cutOutput(context.scrub(numbered.join('\n')), MAX_CHARS).text;
      if (total === 0) text = `[${where.shown} is empty]`;
      else if (numbered.length === 0) text = `[${where.shown} has ${total} lines; start_line ${start} is past the end]`;
      else if (start > 1 || shownEnd < total) text += `\n[lines ${start}-${shownEnd} of ${total}${shownEnd < total ? `; read on with start_line=${shownEnd + 1}` : ''}]`;
      return { output: text, ok: true, exitCode: null };
    },
  };
}
