import { describe, expect, it } from 'vitest';
import { TicketState } from '../database/entities/ticket.entity.js';
import { type TicketRecord, pollAction, triggeredAgain } from './rerun-rule.js';

const runCreated = new Date('2026-11-20T10:00:00Z');
const before = new Date('2026-11-20T09:00:00Z');
const after = new Date('2026-11-20T11:00:00Z');

function record(state: TicketState, over: Partial<TicketRecord> = {}): TicketRecord {
  return { state, runId: 'run-1', lastRunCreatedAt: runCreated, updatedAt: new Date('2026-11-20T10:05:00Z'), ...over };
}

describe('pollAction: the re-run rule', () => {
  it('claims a ticket the service has never seen, expecting it still has no run', () => {
    expect(pollAction(null, after)).toEqual({ kind: 'claim', expectRunId: null });
  });

  it('claims a Pending ticket (e.g. reverted after a crash), expecting its current run', () => {
    expect(pollAction(record(TicketState.Pending), before)).toEqual({ kind: 'claim', expectRunId: 'run-1' });
  });

  it('leaves a ticket whose run is live, however recently it changed', () => {
    for (const state of [TicketState.Enqueued, TicketState.InProgress, TicketState.Parked]) {
      expect(pollAction(record(state), after).kind).toBe('leave');
    }
  });

  it('leaves a Done or Failed ticket the tracker has not changed since its last run was created', () => {
    for (const state of [TicketState.Done, TicketState.Failed]) {
      expect(pollAction(record(state), before).kind).toBe('leave');
      expect(pollAction(record(state), runCreated).kind).toBe('leave');
    }
  });

  it('asks the history of a Done or Failed ticket changed since, from its last run creation', () => {
    expect(pollAction(record(TicketState.Done), after)).toEqual({ kind: 'ask-history', since: runCreated, expectRunId: 'run-1' });
    expect(pollAction(record(TicketState.Failed), after)).toEqual({ kind: 'ask-history', since: runCreated, expectRunId: 'run-1' });
  });

  it('measures from the row\'s last change once retention removed the run', () => {
    const gone = record(TicketState.Done, { runId: null, lastRunCreatedAt: null, updatedAt: after });
    expect(pollAction(gone, new Date('2026-11-20T10:30:00Z')).kind).toBe('leave');
    expect(pollAction(gone, new Date('2026-11-20T12:00:00Z'))).toEqual({ kind: 'ask-history', since: after, expectRunId: null });
  });

  it('lets the history decide when the tracker\'s time cannot be read', () => {
    expect(pollAction(record(TicketState.Done), new Date('not a time')).kind).toBe('ask-history');
  });
});

describe('triggeredAgain', () => {
  it('is true only for a trigger put back strictly after the last run was created', () => {
    expect(triggeredAgain(after, runCreated)).toBe(true);
    expect(triggeredAgain(runCreated, runCreated)).toBe(false);
    expect(triggeredAgain(before, runCreated)).toBe(false);
    expect(triggeredAgain(null, runCreated)).toBe(false);
  });
});
