import { describe, expect, it } from 'vitest';
import { pollWindow } from './poll-window.js';

const options = { overlapMs: 2 * 60_000, fullSweepEveryMs: 60 * 60_000 };
const now = new Date('2026-11-24T12:00:00Z');
const cursor = new Date('2026-11-24T11:59:00Z');

describe('pollWindow', () => {
  it('sweeps in full when the project has no cursor yet', () => {
    expect(pollWindow(null, true, now, options)).toEqual({ fullSweep: true, updatedSince: null });
  });

  it('sweeps in full on the first cycle since taking the lease, whatever the cursor says', () => {
    expect(pollWindow({ cursor, lastFullSweepAt: new Date('2026-11-24T11:50:00Z') }, false, now, options).fullSweep).toBe(true);
  });

  it('asks for what changed since the cursor minus the overlap in between', () => {
    expect(pollWindow({ cursor, lastFullSweepAt: new Date('2026-11-24T11:30:00Z') }, true, now, options))
      .toEqual({ fullSweep: false, updatedSince: new Date('2026-11-24T11:57:00Z') });
  });

  it('sweeps in full again once the last full sweep is an hour old (or unknown)', () => {
    expect(pollWindow({ cursor, lastFullSweepAt: new Date('2026-11-24T11:00:00Z') }, true, now, options).fullSweep).toBe(true);
    expect(pollWindow({ cursor, lastFullSweepAt: new Date('2026-11-24T11:00:01Z') }, true, now, options).fullSweep).toBe(false);
    expect(pollWindow({ cursor, lastFullSweepAt: null }, true, now, options).fullSweep).toBe(true);
  });
});
