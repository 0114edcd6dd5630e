import { OutputStream, type Sandbox } from '../../sandbox/sandbox-backend.js';

/** How long reading a few files of a tree may take (a container sandbox may be slow to exec). */
export const PROBE_TIMEOUT_MS = 60_000;

/** Last line of every probe's output: output without it was cut short. */
export const PROBE_DONE = '@@done';

/** Shell function every probe script may use: stdin as one base64 line (no `@`, so never a frame). */
export const B64_FUNCTION = "b64() { base64 | tr -d '\\n'; }";

/** stderr kept for an error message. */
const STDERR_TAIL_LINES = 5;

/**
 * Runs a read-only POSIX shell script in the sandbox's working tree and answers its stdout lines
 * (without the final `@@done`). Only `Sandbox.exec` is used, so it works the same for a directory
 * on this host and for a container. Throws naming `what` when the script fails, times out or its
 * output is cut short.
 */
export async function runProbe(sandbox: Sandbox, script: string, what: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<string[]> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const result = await sandbox.exec(script, {
    timeoutMs,
    onLine: (stream, line) => {
      if (stream === OutputStream.Stdout) stdout.push(line);
      else {
        stderr.push(line);
        if (stderr.length > STDERR_TAIL_LINES) stderr.shift();
      }
    },
  });
  const said = stderr.length > 0 ? `: ${stderr.join(' | ').slice(0, 500)}` : '';
  if (result.timedOut) throw new Error(`${what} timed out after ${Math.round(timeoutMs / 1000)} s in sandbox ${sandbox.name}`);
  if (result.exitCode !== 0) {
    const how = result.exitCode === null ? `was killed by ${result.signal ?? 'a signal'}` : `exited with code ${result.exitCode}`;
    throw new Error(`${what} ${how} in sandbox ${sandbox.name}${said}`);
  }
  if (stdout[stdout.length - 1] !== PROBE_DONE) throw new Error(`${what} ended without its last line in sandbox ${sandbox.name}${said}`);
  return stdout.slice(0, -1);
}

/** A base64 text (one or many lines) as UTF-8. */
export function fromBase64(lines: string | readonly string[]): string {
  return Buffer.from(typeof lines === 'string' ? lines : lines.join(''), 'base64').toString('utf8');
}

