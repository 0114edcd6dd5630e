import { shellQuote } from '../../common/shell-quote.js';
import { OutputStream, type Sandbox } from '../../sandbox/sandbox-backend.js';
import type { RunEventSink } from '../pipeline.js';
import { RunEventKind } from '../run-event-kind.js';

/** A context's commands of one phase, with where they run. */
export interface ContextCommands {
  /** Repository name (null for a project without repositories) and context name, for messages. */
  repo: string | null;
  context: string;
  /** The part of the tree the context covers (`.` for all): commands start there. */
  path: string;
  phase: 'setup' | 'build' | 'test';
  commands: readonly string[];
}

/** How a phase's commands ended; a failure keeps the tail of the output for the repair round. */
export type CommandsOutcome =
  | { ok: true }
  | { ok: false; error: string; output: string };

/** Lines of a failing command's output kept for the model (head and tail are cut again later). */
const KEPT_OUTPUT_LINES = 400;

/** Where a context's commands say they run, for one-line messages. */
export function contextLabel(c: Pick<ContextCommands, 'repo' | 'context'>): string {
  return c.repo ? `${c.repo}/${c.context}` : c.context;
}

/**
 * Runs a context's commands of one phase in its sandbox, in order, from the context's path; the
 * first that fails ends the phase. The server runs these, not the model: the model cannot skip a
 * red test by claiming it passed. Output goes to the run's events as it comes.
 */
export async function runContextCommands(
  sandbox: Sandbox,
  set: ContextCommands,
  context: { events: RunEventSink; deadline: number; signal: AbortSignal },
): Promise<CommandsOutcome> {
  const where = `${set.phase} of context ${contextLabel(set)}`;
  for (const command of set.commands) {
    // A YAML block command spans lines; the run's error (and the ticket's comment) stays on one.
    const shown = command.replace(/\s+/g, ' ').trim();
    const timeoutMs = context.deadline - Date.now();
    if (timeoutMs <= 0) return { ok: false, error: `the run's time ran out before ${where}: \`${shown}\``, output: '' };
    if (context.signal.aborted) return { ok: false, error: `stopped before ${where}: \`${shown}\``, output: '' };
    const tail: string[] = [];
    const script = set.path === '.' || set.path === '' ? command : `cd ${shellQuote(set.path)} && ${command}`;
    context.events.emit(RunEventKind.Agent, sandbox.name, `${where}: $ ${command}`);
    const result = await sandbox.exec(script, {
      timeoutMs,
      signal: context.signal,
      onLine: (stream, line) => {
        context.events.emit(stream === OutputStream.Stdout ? RunEventKind.Stdout : RunEventKind.Stderr, sandbox.name, line);
        tail.push(line);
        if (tail.length > KEPT_OUTPUT_LINES) tail.shift();
      },
    });
    if (result.timedOut) return { ok: false, error: `${where}: \`${shown}\` timed out`, output: tail.join('\n') };
    if (result.exitCode !== 0) {
      const how = result.exitCode === null ? `was killed by ${result.signal ?? 'a signal'}` : `exited with code ${result.exitCode}`;
      return { ok: false, error: `${where}: \`${shown}\` ${how}`, output: tail.join('\n') };
    }
  }
  return { ok: true };
}
