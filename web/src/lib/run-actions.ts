import type { RunState } from '../api/types';

/**
 * Why a run control is not offered in the run's state, or null when it is (the server's rules,
 * docs/run-control.md: cancel a live run, retry one that ended badly or waits, delete one that ended).
 */
export function cancelRefusal(state: RunState): string | null {
  return state === 'queued' || state === 'running' || state === 'parked' ? null : `The run has ended (${state}); only a queued, running or parked run can be cancelled.`;
}

export function retryRefusal(state: RunState): string | null {
  return state === 'failed' || state === 'cancelled' || state === 'parked' ? null : `Only a failed, cancelled or parked run can be retried; this one is ${state}.`;
}

export function deleteRefusal(state: RunState): string | null {
  return state === 'queued' || state === 'running' || state === 'parked' ? `The run is ${state}: cancel it before deleting it.` : null;
}
