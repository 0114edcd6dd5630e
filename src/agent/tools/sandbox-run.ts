import type { ExecResult, OutputStream, Sandbox } from '../../sandbox/sandbox-backend.js';
import { abortError, raceAbort } from '../abort.js';
import { cutOutput } from '../output-cut.js';

/** A command's end and its output lines, stdout and stderr interleaved as they came. */
export interface CommandRun extends ExecResult {
  /** The output, whole or (past `keepChars`) its head and tail with the middle dropped. */
  text: string;
  /** Characters dropped from the middle while collecting. */
  dropped: number;
  /** Lines by stream, kept only when asked (`keepLines`). */
  lines: { stream: OutputStream; line: string }[];
}

export interface RunOptions {
  timeoutMs: number;
  signal: AbortSignal;
  /** Characters of head and of tail kept while collecting (0: none, the caller reads lines); a command printing gigabytes holds at most twice this. */
  keepChars?: number;
  keepLines?: boolean;
  /** Sees every line as it comes (for callers that keep only some). */
  onLine?(stream: OutputStream, line: string): void;
}

const DEFAULT_KEEP = 256 * 1024;

/**
 * Runs `command` in the sandbox (from its working directory) and collects its output. The run is
 * raced against `signal` (the sandbox is also asked to kill the command): a cancel returns at
 * once, rejecting with the abort error.
 */
export function runInSandbox(sandbox: Sandbox, command: string, options: RunOptions): Promise<CommandRun> {
  const keep = options.keepChars ?? DEFAULT_KEEP;
  const collector = new Collector(keep);
  const lines: CommandRun['lines'] = [];
  const running = sandbox.exec(command, {
    timeoutMs: Math.max(1, Math.floor(options.timeoutMs)),
    signal: options.signal,
    onLine: (stream, line) => {
      collector.add(line);
      if (options.keepLines) lines.push({ stream, line });
      options.onLine?.(stream, line);
    },
  });
  return raceAbort(running, options.signal).then((result) => {
    if (options.signal.aborted) throw abortError(options.signal);
    return { ...result, text: collector.text(), dropped: collector.dropped, lines };
  });
}

/** Keeps the first and last `keep` characters of the lines it is given, counting what falls between. */
class Collector {
  private head = '';
  private tail: string[] = [];
  private tailLength = 0;
  dropped = 0;
  private headFull = false;

  constructor(private readonly keep: number) {}

  add(line: string): void {
    if (this.keep === 0) return; // the caller reads the lines itself
    const piece = this.head === '' && !this.headFull ? line : `\n${line}`;
    if (!this.headFull) {
      if (this.head.length + piece.length <= this.keep) {
        this.head += piece;
        return;
      }
      this.headFull = true;
    }
    this.tail.push(piece);
    this.tailLength += piece.length;
    if (this.tailLength > 2 * this.keep) this.trim();
  }

  text(): string {
    this.trim();
    return this.head + this.tail.join('');
  }

  private trim(): void {
    if (this.tailLength <= this.keep) return;
    const joined = this.tail.join('');
    const cut = joined.length - this.keep;
    this.dropped += cut;
    this.tail = [joined.slice(cut)];
    this.tailLength = this.keep;
  }
}

/** A command's output for the model: scrubbed, then cut to `maxChars` around a note of what went. */
export function outputForModel(run: CommandRun, maxChars: number, scrub: (text: string) => string): string {
  return cutOutput(scrub(run.text), maxChars, run.dropped).text;
}

/** How a command ended, in words: `exit code 0`, `killed by SIGKILL`, `timed out after 300 s and was killed`. */
export function describeEnd(run: ExecResult, timeoutMs: number): string {
  if (run.timedOut) return `timed out after ${Math.round(timeoutMs / 1000)} s and was killed`;
  if (run.exitCode !== null) return `exit code ${run.exitCode}`;
  return `killed by ${run.signal ?? 'a signal'}`;
}

/** The time a command may take: what it asks (or the default), never past the step deadline. */
export function commandTimeout(askedMs: number, deadline: number): number {
  return Math.max(1, Math.min(askedMs, deadline - Date.now()));
}
