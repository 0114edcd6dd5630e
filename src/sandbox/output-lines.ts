import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { type ExecOptions, OutputStream } from './sandbox-backend.js';

/** Calls `onLine` for every line of a command's stdout and stderr as it arrives; resolves once both have ended. */
export function forEachOutputLine(stdout: Readable, stderr: Readable, onLine: ExecOptions['onLine']): Promise<void> {
  const streams = [
    { stream: OutputStream.Stdout, source: stdout },
    { stream: OutputStream.Stderr, source: stderr },
  ];
  return Promise.all(streams.map(({ stream, source }) => new Promise<void>((done) => {
    const lines = createInterface({ input: source, crlfDelay: Number.POSITIVE_INFINITY });
    lines.on('line', (line) => onLine(stream, line));
    lines.on('close', () => done());
  }))).then(() => undefined);
}
