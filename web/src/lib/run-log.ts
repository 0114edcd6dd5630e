import type { RunEvent } from '../api/types';

/**
 * The run page's log: which events a filter keeps (kept incrementally, so a live event costs one
 * test and not a pass over 100,000 lines), and how a model or tool call folds to one line.
 */
export interface LogFilter {
  sandbox?: string;
  /** One kind, or several separated by commas. */
  kind?: string;
  /** Case-insensitive text to find in the line. */
  q?: string;
}

export function matchesLog(event: RunEvent, filter: LogFilter, kinds = kindSet(filter.kind), needle = filter.q?.toLowerCase() ?? ''): boolean {
  if (filter.sandbox && event.sandbox !== filter.sandbox) return false;
  if (kinds && !kinds.has(event.kind)) return false;
  if (needle && !event.text.toLowerCase().includes(needle) && !event.kind.includes(needle)) return false;
  return true;
}

function kindSet(kind: string | undefined): Set<string> | null {
  if (!kind) return null;
  const kinds = kind.split(',').map((k) => k.trim()).filter(Boolean);
  return kinds.length ? new Set(kinds) : null;
}

/**
 * The positions (in the log's seq order) of the events a filter keeps. `update` scans only what
 * arrived since the last call; it starts over when the filter changed or an event arrived out of
 * order (the log re-sorts, moving what was scanned).
 */
export class FilteredLog {
  private indexes: number[] = [];
  private scanned = 0;
  private lastScanned: RunEvent | undefined;
  private key = '';
  private source: readonly RunEvent[] | null = null;
  private kinds: Set<string> | null = null;
  private needle = '';

  update(events: readonly RunEvent[], filter: LogFilter): readonly number[] {
    const key = JSON.stringify([filter.sandbox ?? '', filter.kind ?? '', filter.q ?? '']);
    const moved = this.scanned > 0 && events[this.scanned - 1] !== this.lastScanned;
    if (key !== this.key || events !== this.source || moved || events.length < this.scanned) {
      this.reset(key, filter);
      this.source = events;
    }
    if (this.scanned === events.length) return this.indexes;
    const next = this.indexes.slice();
    for (let i = this.scanned; i < events.length; i += 1) {
      if (matchesLog(events[i]!, filter, this.kinds, this.needle)) next.push(i);
    }
    this.scanned = events.length;
    this.lastScanned = events[events.length - 1];
    this.indexes = next;
    return next;
  }

  private reset(key: string, filter: LogFilter): void {
    this.key = key;
    this.indexes = [];
    this.scanned = 0;
    this.lastScanned = undefined;
    this.kinds = kindSet(filter.kind);
    this.needle = filter.q?.toLowerCase() ?? '';
  }
}

export interface ToolCallLine {
  type: 'tool-call';
  tool: string;
  brief: string;
  exitCode: number | null;
  ok: boolean;
  seconds: number;
}

export interface ModelCallLine {
  type: 'model-call';
  model: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  seconds: number;
  finishReason: string;
  attempts: number;
}

export type FoldedCall = ToolCallLine | ModelCallLine;

// The server's formats (src/pipelines/agent-run/agent-events.ts): formatToolCall, formatModelCall.
const TOOL_CALL = /^(.*) →(?: exit (-?\d+),)? (ok|error) \((\d+(?:\.\d+)?) s\)$/s;
const MODEL_CALL = /^(.+): (\d+) input \+ (\d+) output tokens, \$(\d+(?:\.\d+)?), (\d+(?:\.\d+)?) s, ([^,]+?)(?:, (\d+) attempts)?$/s;

/** A tool call's or model call's parts, or null for any other line (or a text in another format). */
export function foldCall(event: Pick<RunEvent, 'kind' | 'text'>): FoldedCall | null {
  if (event.kind === 'tool-call') {
    const m = TOOL_CALL.exec(event.text);
    if (!m) return null;
    const brief = m[1]!;
    // A brief is "<tool>: <arguments>" or just the tool's name ("finish").
    const named = /^([A-Za-z_][\w-]*)(?::\s*|\s*\(|$)/.exec(brief);
    const tool = named ? named[1]! : brief.split(/\s/)[0] ?? brief;
    return { type: 'tool-call', tool, brief, exitCode: m[2] === undefined ? null : Number(m[2]), ok: m[3] === 'ok', seconds: Number(m[4]) };
  }
  if (event.kind === 'model-call') {
    const m = MODEL_CALL.exec(event.text);
    if (!m) return null;
    return {
      type: 'model-call', model: m[1]!, inputTokens: Number(m[2]), outputTokens: Number(m[3]), costUsd: Number(m[4]),
      seconds: Number(m[5]), finishReason: m[6]!, attempts: m[7] === undefined ? 1 : Number(m[7]),
    };
  }
  return null;
}

/** Lines longer than this (or of more than one line) fold to their first line. */
export const FOLD_CHARS = 240;

/** Whether a line has more to show than its folded form. */
export function isFoldable(event: Pick<RunEvent, 'kind' | 'text'>): boolean {
  return event.kind === 'tool-call' || event.kind === 'model-call' || event.text.length > FOLD_CHARS || event.text.includes('\n');
}

/** The one line a long or multi-line text folds to. */
export function firstLine(text: string): string {
  const cut = text.indexOf('\n');
  const line = cut === -1 ? text : text.slice(0, cut);
  return line.length > FOLD_CHARS ? `${line.slice(0, FOLD_CHARS)}…` : line;
}

/**
 * Which lines are open: everything follows the default ("Expand all" / "Collapse all"), and a
 * line the reader toggled is the exception, until the next expand/collapse all.
 */
export class FoldState {
  constructor(
    readonly expandedByDefault = false,
    private readonly toggled: ReadonlySet<number> = new Set(),
  ) {}

  isOpen(seq: number): boolean {
    return this.toggled.has(seq) !== this.expandedByDefault;
  }

  toggle(seq: number): FoldState {
    const next = new Set(this.toggled);
    if (!next.delete(seq)) next.add(seq);
    return new FoldState(this.expandedByDefault, next);
  }

  static all(open: boolean): FoldState {
    return new FoldState(open);
  }
}

/** The distinct sandboxes and kinds of a log, for the filter menus (sorted). */
export function facetsOf(events: readonly RunEvent[], from = 0, into = { sandboxes: new Set<string>(), kinds: new Set<string>() }) {
  for (let i = from; i < events.length; i += 1) {
    const event = events[i]!;
    if (event.sandbox) into.sandboxes.add(event.sandbox);
    into.kinds.add(event.kind);
  }
  return into;
}
