import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../api/types';
import { EventLog } from './event-log';

const ev = (seq: number): RunEvent => ({ seq, at: '2026-11-28T12:00:00Z', kind: 'output', sandbox: null, text: `line ${seq}` });
const seqs = (log: EventLog) => log.all().map((e) => e.seq);

describe('a run event log merged by seq', () => {
  it('keeps each event once when the API page and the hub deliver the same events', () => {
    const log = new EventLog();
    expect(log.add([ev(1), ev(2), ev(3)])).toBe(3);
    expect(log.add([ev(3), ev(2)])).toBe(0);
    expect(log.add([ev(4)])).toBe(1);
    expect(seqs(log)).toEqual([1, 2, 3, 4]);
  });

  it('leaves out what has no seq (a ticket transition the hub relays is no stored event of the run)', () => {
    const log = new EventLog();
    log.add([ev(1)]);
    const transition = { ...ev(0), seq: null, kind: 'state' } as unknown as RunEvent;
    expect(log.add([transition, ev(2)])).toBe(1);
    expect(log.add([transition])).toBe(0);
    expect(seqs(log)).toEqual([1, 2]);
    expect(log.contiguousSeq()).toBe(2);
  });

  it('orders a live event that arrived before the resync filled the gap', () => {
    const log = new EventLog();
    log.add([ev(1), ev(2)]);
    // Offline: 3 and 4 were missed; after the reconnect the hub delivers 5 before the resync answers.
    log.add([ev(5)]);
    expect(log.contiguousSeq()).toBe(2);
    log.add([ev(3), ev(4), ev(5)]);
    expect(seqs(log)).toEqual([1, 2, 3, 4, 5]);
    expect(log.contiguousSeq()).toBe(5);
  });

  it('moves its revision only when something new arrived', () => {
    const log = new EventLog();
    log.add([ev(1)]);
    const revision = log.revision;
    log.add([ev(1)]);
    expect(log.revision).toBe(revision);
    log.add([ev(2)]);
    expect(log.revision).toBe(revision + 1);
  });

  it('starts a resync from 0 when it holds nothing, or when the first event is missing', () => {
    const log = new EventLog();
    expect(log.contiguousSeq()).toBe(0);
    log.add([ev(2), ev(3)]);
    expect(log.contiguousSeq()).toBe(0);
  });
});
