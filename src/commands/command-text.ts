import { BUILT_IN_PIPELINES, DEFAULT_PIPELINE, builtInTraitsOf } from '../pipelines/built-in-pipelines.js';
import type { Platform } from '../platforms/platform.js';
import { traitsOf } from '../platforms/platform-traits.registry.js';

/** Spec, "Pull-request commands" rule 1: the prefixes that make a comment a command. */
export const COMMAND_PREFIXES = ['/service-agent', '/serviceagent', '/sa'] as const;

/** Spec rule 2: the only pipelines a comment can start, whatever the configuration routes labels to. */
export const COMMAND_PIPELINES: readonly string[] = BUILT_IN_PIPELINES.filter((name) => (builtInTraitsOf(name)?.commandWords.length ?? 0) > 0);

/** Words that name a command pipeline (each pipeline's `commandWords`, its own name first). */
const PIPELINE_WORDS: Readonly<Record<string, string>> = Object.fromEntries(
  COMMAND_PIPELINES.flatMap((name) => (builtInTraitsOf(name)?.commandWords ?? []).map((word) => [word, name])),
);

/** Filler words allowed between a pipeline and its ticket (`/sa code for BILL-12`). */
const FILLERS = new Set(['for', 'on', 'ticket', 'issue', 'of']);

/**
 * What a command asks for, decided without a model:
 * - `help`: recognised and logged; nothing is posted (rule 3);
 * - `bare`: no pipeline and no ticket; `instructions` is whatever followed (null when nothing
 *   did) — a rework on a service pull request, ignored anywhere else;
 * - `run`: a command pipeline with an optional ticket; `instructions` is the text after them;
 * - `other`: names a pipeline that comments cannot start (ignored, rule 2);
 * - `free`: text the grammar does not read (the model may resolve it, never on a service pull request).
 */
export type CommandRequest =
  | { kind: 'help' }
  | { kind: 'bare'; instructions: string | null }
  | { kind: 'run'; pipeline: string; ticket: string | null; instructions: string | null }
  | { kind: 'other'; name: string }
  | { kind: 'free'; text: string };

/**
 * The text after the command prefix when `body` is a command, else null. The prefix must open
 * the comment (after leading whitespace) and end at whitespace or the end: `/sa-is`, `/sabotage`
 * and `/assign` are conversation. Case-insensitive, as people type it.
 */
export function commandText(body: string): string | null {
  const trimmed = body.replace(/^[\s\u200b\ufeff]+/, '');
  const lower = trimmed.toLowerCase();
  for (const prefix of COMMAND_PREFIXES) {
    if (!lower.startsWith(prefix)) continue;
    const rest = trimmed.slice(prefix.length);
    if (rest.length === 0 || /^\s/.test(rest)) return rest.trim();
  }
  return null;
}

/** A ticket reference as the project's tracker writes ids: `#42` / `42` (GitHub, GitLab, Azure DevOps `AB#42` too), `BILL-12` (Jira). */
export function ticketReference(word: string, tracker: Platform): string | null {
  const w = word.replace(/[.,;:!?)]+$/, '').replace(/^\(/, '');
  if (traitsOf(tracker).ticketReference === 'key') {
    const key = /^([A-Za-z][A-Za-z0-9_]*-\d+)$/.exec(w);
    return key ? key[1]!.toUpperCase() : null;
  }
  const number = /^(?:AB)?#?(\d{1,12})$/i.exec(w);
  return number && Number(number[1]) > 0 ? String(Number(number[1])) : null;
}

/**
 * Reads a command's text (after the prefix): the first line's words name the pipeline and the
 * ticket; everything after them, following lines included, is instructions. `otherPipelines`:
 * configured pipeline names, so that `/sa lint` is recognised as a pipeline comments may not start.
 */
export function parseCommand(text: string, tracker: Platform, otherPipelines: readonly string[] = []): CommandRequest {
  const trimmed = text.trim();
  if (trimmed.length === 0) return { kind: 'bare', instructions: null };
  const newline = trimmed.indexOf('\n');
  const firstLine = newline < 0 ? trimmed : trimmed.slice(0, newline);
  const following = newline < 0 ? '' : trimmed.slice(newline + 1);
  const words = firstLine.trim().split(/\s+/);
  const first = words[0]!.toLowerCase();
  if (first === 'help' && words.length === 1 && following.trim() === '') return { kind: 'help' };

  const pipeline = PIPELINE_WORDS[first] ?? null;
  if (pipeline === null) {
    const ticket = ticketReference(words[0]!, tracker);
    if (ticket !== null) return run(DEFAULT_PIPELINE, ticket, words.slice(1), following);
    if (otherPipelines.some((name) => name.toLowerCase() === first)) return { kind: 'other', name: words[0]! };
    return { kind: 'free', text: trimmed };
  }
  let at = 1;
  while (at < words.length && FILLERS.has(words[at]!.toLowerCase()) && at + 1 < words.length && ticketReference(words[at + 1]!, tracker) !== null) at++;
  const ticket = at < words.length ? ticketReference(words[at]!, tracker) : null;
  return run(pipeline, ticket, words.slice(ticket === null ? 1 : at + 1), following);
}

function run(pipeline: string, ticket: string | null, rest: readonly string[], following: string): CommandRequest {
  const instructions = [rest.join(' '), following].map((part) => part.trim()).filter((part) => part.length > 0).join('\n');
  return { kind: 'run', pipeline, ticket, instructions: instructions.length > 0 ? instructions : null };
}
