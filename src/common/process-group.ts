import type { ChildProcess } from 'node:child_process';
import type { LaunchedCommand } from './launcher/process-launcher.js';

type Child = ChildProcess | LaunchedCommand;

/** Grace between SIGTERM and SIGKILL when a command overruns its time. */
const KILL_GRACE_MS = 2000;

/** Signals the child's whole process group (it was spawned `detached`), so its own children go too. */
export function signalGroup(child: Child, signal: NodeJS.Signals): void {
  if ('signalGroup' in child) return child.signalGroup(signal);
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

/** A time limit on a detached child: SIGTERM to its group when it runs out, SIGKILL after a grace. */
export interface GroupDeadline {
  readonly timedOut: boolean;
  /** The child ended: no signal is sent any more. */
  clear(): void;
}

export function groupDeadline(child: Child, timeoutMs: number): GroupDeadline {
  let timedOut = false;
  let killTimer: NodeJS.Timeout | undefined;
  const timer = setTimeout(() => {
    timedOut = true;
    signalGroup(child, 'SIGTERM');
    killTimer = setTimeout(() => signalGroup(child, 'SIGKILL'), KILL_GRACE_MS);
  }, timeoutMs);
  return {
    get timedOut() {
      return timedOut;
    },
    clear() {
      clearTimeout(timer);
      clearTimeout(killTimer);
    },
  };
}
