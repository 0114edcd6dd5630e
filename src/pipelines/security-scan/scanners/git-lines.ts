import type { GitOutput } from '../../pipeline.js';

/** How reading a git command's output ended. */
export type GitReadEnd = { ok: true } | { ok: false; error: string };

/** What the reader decides after each record: go on, or stop git (enough findings). */
export type GitRecordVerdict = 'more' | 'enough';

/**
 * Streams a git command's output record by record (`\n`, or `\0` for `-z` output), never holding
 * more than one record. Ends git when the reader has enough or `signal` fires (then rejects with
 * the signal's reason). `noMatchIsEmpty`: exit 1 means "nothing found" (`git grep`).
 */
export async function readGitRecords(
  output: GitOutput,
  onRecord: (record: string) => GitRecordVerdict,
  options: { signal?: AbortSignal; separator?: '\n' | '\u0000'; noMatchIsEmpty?: boolean } = {},
): Promise<GitReadEnd> {
  const separator = options.separator === '\u0000' ? 0 : 0x0a;
  const abort = () => output.stop();
  options.signal?.addEventListener('abort', abort, { once: true });
  let stopped = false;
  try {
    if (options.signal?.aborted) abort();
    let pending: Buffer[] = [];
    const emit = (piece: Buffer) => {
      pending.push(piece);
      const record = Buffer.concat(pending).toString('utf8');
      pending = [];
      if (onRecord(record) === 'enough') stopped = true;
    };
    try {
      for await (const chunk of output.stdout as AsyncIterable<Buffer | string>) {
        const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        let from = 0;
        for (let at = data.indexOf(separator, from); at !== -1 && !stopped; at = data.indexOf(separator, from)) {
          emit(data.subarray(from, at));
          from = at + 1;
        }
        if (stopped) break;
        if (from < data.length) pending.push(data.subarray(from));
      }
    } catch (error) {
      if (!options.signal?.aborted) {
        output.stop();
        return { ok: false, error: (error as Error).message };
      }
    }
    if (!stopped && pending.length > 0 && !options.signal?.aborted) emit(Buffer.alloc(0));
    if (stopped) output.stop();
    if (options.signal?.aborted) throw options.signal.reason ?? new Error('aborted');
    try {
      await output.done;
    } catch (error) {
      if (stopped) return { ok: true };
      if (options.noMatchIsEmpty && exitedWith1(error)) return { ok: true };
      return { ok: false, error: (error as Error).message };
    }
    return { ok: true };
  } finally {
    options.signal?.removeEventListener('abort', abort);
  }
}

function exitedWith1(error: unknown): boolean {
  const code = (error as { exitCode?: unknown }).exitCode;
  return code === 1 || (code === undefined && /exit(?:ed)?(?: with| code)? 1\b/.test((error as Error).message ?? ''));
}
