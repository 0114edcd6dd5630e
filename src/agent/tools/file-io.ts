import { Readable } from 'node:stream';
import { pack } from 'tar-stream';
import type { Sandbox } from '../../sandbox/sandbox-backend.js';
import { ESCAPE_EXIT, confine } from './shell.js';
import { runInSandbox } from './sandbox-run.js';

/** A file as it stands in the sandbox before a write: whether it exists and its permission bits. */
export interface FileState {
  exists: boolean;
  mode: number;
}

export type IoResult<T> = { ok: true; value: T } | { ok: false; error: string };

export interface IoOptions {
  timeoutMs: number;
  signal: AbortSignal;
}

/**
 * Checks `relative` stays in the tree (links followed) and is not a directory, creates its
 * parent directories, and says whether the file exists and its mode (kept by the write).
 */
export async function prepareWrite(sandbox: Sandbox, relative: string, options: IoOptions): Promise<IoResult<FileState>> {
  const script = [
    confine(relative),
    `[ -d "$t" ] && { echo "it is a directory" >&2; exit 3; }`,
    `mkdir -p -- "$(dirname -- "$t")" || exit 3`,
    `if [ -e "$t" ]; then stat -c %a -- "$t" 2>/dev/null || echo 644; else echo new; fi`,
  ].join('\n');
  const run = await runInSandbox(sandbox, script, { ...options, keepLines: true, keepChars: 0 });
  if (run.exitCode !== 0) return { ok: false, error: failure(run.lines, run.exitCode) };
  const answer = run.lines.filter((l) => l.stream === 'stdout').at(-1)?.line ?? 'new';
  return { ok: true, value: answer === 'new' ? { exists: false, mode: 0o644 } : { exists: true, mode: Number.parseInt(answer, 8) || 0o644 } };
}

/**
 * Writes `content` to `relative` as a one-file tar through putArchive: any bytes, any size, no
 * shell quoting, and the same path for container sandboxes. The sandbox refuses an entry that
 * would land outside its tree or below a symbolic link.
 */
export async function writeFile(sandbox: Sandbox, relative: string, content: Buffer, mode: number): Promise<void> {
  const archive = pack();
  archive.entry({ name: relative, type: 'file', size: content.length, mode: mode & 0o777 }, content);
  archive.finalize();
  await sandbox.putArchive(Readable.from(archive, { objectMode: false }));
}

/** The exact bytes of a file (through base64, so line ends and a missing last newline survive) and its mode. */
export async function readFileBytes(sandbox: Sandbox, relative: string, options: IoOptions): Promise<IoResult<{ bytes: Buffer; mode: number }>> {
  const script = [
    confine(relative),
    `[ -e "$t" ] || { echo "no such file" >&2; exit 3; }`,
    `[ -d "$t" ] && { echo "it is a directory" >&2; exit 3; }`,
    `stat -c %a -- "$t" 2>/dev/null || echo 644`,
    `base64 < "$t"`,
  ].join('\n');
  const run = await runInSandbox(sandbox, script, { ...options, keepLines: true, keepChars: 0 });
  if (run.exitCode !== 0) return { ok: false, error: failure(run.lines, run.exitCode) };
  const [mode, ...encoded] = run.lines.filter((l) => l.stream === 'stdout').map((l) => l.line);
  return { ok: true, value: { bytes: Buffer.from(encoded.join(''), 'base64'), mode: Number.parseInt(mode ?? '', 8) || 0o644 } };
}

function failure(lines: { stream: string; line: string }[], exitCode: number | null): string {
  const said = lines.filter((l) => l.stream === 'stderr').map((l) => l.line).join(' ').trim();
  if (exitCode === ESCAPE_EXIT) return said || 'the path leads outside the working tree';
  return said || `the command failed (exit ${exitCode})`;
}
