import type { RunEvent } from '../api/types';

/**
 * A run's events in `seq` order, fed from two sources that overlap: the API's pages (on open and
 * after every reconnect, from the last seq held) and the hub's live `run.event`s. Merging by seq
 * means an event seen twice is kept once and one that arrived early waits for the gap before it
 * to be filled by the resync, so nothing is lost or doubled.
 */
export class EventLog {
  private readonly events: RunEvent[] = [];
  private readonly seen = new Set<number>();
  private version = 0;

  /** Adds events (any order, duplicates ignored); answers how many were new. */
  add(incoming: readonly RunEvent[]): number {
    let added = 0;
    let sorted = true;
    for (const event of incoming) {
      // Only the run's stored events are lines: the hub also relays ticket transitions (no seq),
      // which a reload would not show (the state comes with run.changed).
      if (!Number.isSafeInteger(event.seq) || this.seen.has(event.seq)) continue;
      this.seen.add(event.seq);
      const last = this.events[this.events.length - 1];
      if (last && last.seq > event.seq) sorted = false;
      this.events.push(event);
      added += 1;
    }
    if (!sorted) this.events.sort((a, b) => a.seq - b.seq);
    if (added > 0) this.version += 1;
    return added;
  }

  /** The highest seq held with no gap before it: the `after` of the next resync. */
  contiguousSeq(): number {
    let seq = 0;
    for (const event of this.events) {
      if (event.seq > seq + 1) break;
      seq = event.seq;
    }
    return seq;
  }

  get size(): number {
    return this.events.length;
  }

  get revision(): number {
    return this.version;
  }

  all(): readonly RunEvent[] {
    return this.events;
  }
}
