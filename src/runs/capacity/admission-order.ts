import type { CapacityConfig } from '../../config/service-config.js';
import { type Footprint, add, exceedsCapacity, fits } from './footprint.js';

export interface WaitingRun {
  id: string;
  footprint: Footprint;
}

/**
 * Which waiting runs (given in claim order) to admit now, in strict FIFO order: admit from the
 * head while the head fits; the first that does not fit stops admission, even when a later
 * (smaller) run would fit. A run that could never fit is not waited for (its consumer fails
 * it), so it cannot block the queue forever.
 */
export function admitInOrder(waiting: readonly WaitingRun[], used: Footprint, capacity: CapacityConfig | null): WaitingRun[] {
  const admitted: WaitingRun[] = [];
  let current = used;
  for (const run of waiting) {
    if (exceedsCapacity(run.footprint, capacity)) continue;
    if (!fits(current, run.footprint, capacity)) break;
    admitted.push(run);
    current = add(current, run.footprint);
  }
  return admitted;
}
