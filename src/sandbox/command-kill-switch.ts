import type { ExecOptions } from './sandbox-backend.js';

/** Whether a command was killed, and whether for its time; `disarm` once it has ended. */
export interface KillSwitch {
  readonly killed: boolean;
  readonly timedOut: boolean;
  disarm(): void;
}

/**
 * Calls `kill` once: when the command's time runs out (then `timedOut`) or its abort signal
 * fires (a cancel). The container backends kill through a second exec, so they share this.
 */
export function armKillSwitch(options: Pick<ExecOptions, 'timeoutMs' | 'signal'>, kill: () => void): KillSwitch {
  let killed = false;
  let timedOut = false;
  const fire = () => {
    if (killed) return;
    killed = true;
    kill();
  };
  const timer = setTimeout(() => {
    timedOut = true;
    fire();
  }, options.timeoutMs);
  options.signal?.addEventListener('abort', fire, { once: true });
  if (options.signal?.aborted) fire();
  return {
    get killed() {
      return killed;
    },
    get timedOut() {
      return timedOut;
    },
    disarm() {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', fire);
    },
  };
}
