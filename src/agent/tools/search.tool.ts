import type { AgentTree } from '../agent-types.js';
import { ESCAPE_EXIT, confine, shellQuote } from './shell.js';
import { commandTimeout, runInSandbox } from './sandbox-run.js';
import { type AgentTool, type ToolContext, type ToolParameters, type ToolResult, toolError } from './tool-types.js';

/** Result lines the model gets; past it, it is told to narrow the search. */
export const SEARCH_MAX_RESULTS = 200;
/** A matching line longer than this is clipped (minified files). */
const MAX_LINE_CHARS = 300;
const SEARCH_TIMEOUT_MS = 60_000;

const PARAMETERS: ToolParameters = {
  properties: {
    pattern: { type: 'string', description: 'An extended regular expression (grep -E).' },
    path: { type: 'string', description: 'A file or directory to search, relative to the working tree (default: all of it).' },
  },
  required: ['pattern'],
};

/**
 * `search {pattern, path?}`: `grep -rnIE` (plain grep, so no ripgrep is needed in the sandbox),
 * binary files and `.git` skipped, at most SEARCH_MAX_RESULTS lines of `path:line:text`. Without
 * a path in a multi-repository run every repository is searched, results prefixed by its name.
 */
export function searchTool(): AgentTool {
  return {
    name: 'search',
    description: `Search file contents for a regular expression (grep -E); answers path:line:text, at most ${SEARCH_MAX_RESULTS} lines.`,
    parameters: PARAMETERS,
    brief: (input) => `search: ${String(input.pattern)}${input.path ? ` in ${String(input.path)}` : ''}`,
    async run(input, context) {
      const pattern = String(input.pattern);
      if (pattern === '') return toolError('the pattern is empty');
      let targets: { tree: AgentTree; relative: string; shown: string }[];
      if (input.path === undefined || input.path === '') {
        targets = context.trees.all.map((tree) => ({ tree, relative: '.', shown: context.trees.show(tree, '.') }));
      } else {
        const where = context.trees.resolve(String(input.path), true);
        if ('error' in where) return toolError(where.error);
        targets = [where];
      }
      const found: string[] = [];
      let total = 0;
      let exitCode = 1;
      for (const target of targets) {
        const result = await searchTree(target, pattern, context, found, () => (total += 1));
        if ('error' in result) return result.error;
        if (result.exitCode === 0) exitCode = 0;
        else if (result.exitCode !== 1 && exitCode !== 0) exitCode = result.exitCode ?? 2;
      }
      if (total === 0) return { output: exitCode === 1 ? 'No matches.' : `grep failed (exit ${exitCode}).`, ok: exitCode === 1, exitCode };
      const more = total > found.length ? `\n[${total} matching lines, the first ${found.length} shown: narrow the pattern or the path]` : '';
      return { output: context.scrub(found.join('\n')) + more, ok: true, exitCode };
    },
  };
}

async function searchTree(
  target: { tree: AgentTree; relative: string; shown: string },
  pattern: string,
  context: ToolContext,
  found: string[],
  counted: () => void,
): Promise<{ exitCode: number | null } | { error: ToolResult }> {
  const prefix = context.trees.multi ? `${target.tree.prefix}/` : '';
  const script = [
    confine(target.relative),
    // grep names files as given: searched from `.`, they come out `./src/x.ts` (the `./` is dropped below).
    `grep -rnIE --exclude-dir=.git -m 100 -e ${shellQuote(pattern)} -- ${shellQuote(target.relative)}`,
  ].join('\n');
  const stderr: string[] = [];
  const run = await runInSandbox(target.tree.sandbox, script, {
    timeoutMs: commandTimeout(SEARCH_TIMEOUT_MS, context.deadline),
    signal: context.signal,
    keepChars: 0,
    onLine: (stream, line) => {
      if (stream === 'stderr') {
        if (stderr.length < 20) stderr.push(line);
        return;
      }
      counted();
      if (found.length >= SEARCH_MAX_RESULTS) return;
      const clean = line.startsWith('./') ? line.slice(2) : line;
      found.push(prefix + (clean.length > MAX_LINE_CHARS ? `${clean.slice(0, MAX_LINE_CHARS)}… [clipped]` : clean));
    },
  });
  if (run.exitCode === ESCAPE_EXIT) return { error: toolError(`${target.shown}: ${stderr.join(' ') || 'the path leads outside the working tree'}`) };
  if (run.exitCode !== 0 && run.exitCode !== 1 && found.length === 0) {
    return { error: toolError(`grep failed: ${stderr.join(' ').slice(0, 500) || `exit ${run.exitCode}`}`, run.exitCode) };
  }
  return { exitCode: run.exitCode };
}
