import type { Readable, Writable } from 'node:stream';
import type { Exec, V1Status } from '@kubernetes/client-node';
import { SANDBOX_CONTAINER } from './pod-manifest.js';

/** An exec whose socket closed without the status that carries its exit (a lost connection, a deleted pod). */
export class ExecLostError extends Error {}

export interface PodExecution {
  /** The exit code the API server reported on the status channel. */
  readonly exit: Promise<number>;
  /** Closes the socket (the command itself is not stopped by this). */
  close(): void;
}

/**
 * Runs `command` in the sandbox container through the exec subresource (WebSocket, channel
 * protocol): stdout and stderr go to the given streams, which end when the status arrives; the
 * exit code comes from that status (`Success` → 0, `NonZeroExitCode` → its `ExitCode` cause).
 * With `stdin`, its end half-closes the command's stdin (the v5 protocol's CLOSE signal).
 */
export async function execInPod(
  exec: Exec,
  target: { namespace: string; pod: string },
  command: string[],
  io: { stdout: Writable | null; stderr: Writable | null; stdin?: Readable | null },
): Promise<PodExecution> {
  let status: V1Status | null = null;
  const socket = await exec.exec(target.namespace, target.pod, SANDBOX_CONTAINER, command, io.stdout, io.stderr, io.stdin ?? null, false, (s) => {
    status = s;
  });
  const exit = new Promise<number>((resolve, reject) => {
    const settle = () => {
      if (status) {
        try {
          resolve(exitCodeOf(status));
        } catch (error) {
          reject(error);
        }
      } else reject(new ExecLostError(`the exec in pod ${target.pod} ended without an exit status`));
      io.stdout?.end();
      io.stderr?.end();
    };
    if (socket.readyState === socket.CLOSED) settle();
    else socket.addEventListener('close', settle, { once: true });
  });
  exit.catch(() => undefined);
  return { exit, close: () => socket.close() };
}

export function exitCodeOf(status: V1Status): number {
  if (status.status === 'Success') return 0;
  if (status.reason === 'NonZeroExitCode') {
    const code = Number(status.details?.causes?.find((c) => c.reason === 'ExitCode')?.message);
    if (Number.isInteger(code)) return code;
  }
  throw new Error(`exec failed: ${status.message ?? status.reason ?? 'unknown error'}`);
}
