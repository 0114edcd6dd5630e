import { describe, expect, it } from 'vitest';
import { TicketState } from '../database/entities/ticket.entity.js';
import { LIFECYCLE_LABELS } from '../platforms/service-marker.js';
import { LifecycleTrigger, TRANSITIONS, canTransition, lifecycleLabel } from './lifecycle.js';

describe('ticket lifecycle table', () => {
  it('claims only tickets without a live run', () => {
    expect(canTransition(LifecycleTrigger.Claim, TicketState.Pending)).toBe(true);
    expect(canTransition(LifecycleTrigger.Claim, TicketState.Done)).toBe(true);
    expect(canTransition(LifecycleTrigger.Claim, TicketState.Failed)).toBe(true);
    expect(canTransition(LifecycleTrigger.Claim, TicketState.Enqueued)).toBe(false);
    expect(canTransition(LifecycleTrigger.Claim, TicketState.InProgress)).toBe(false);
  });

  it('refuses illegal moves', () => {
    expect(canTransition(LifecycleTrigger.Succeed, TicketState.Enqueued)).toBe(false);
    expect(canTransition(LifecycleTrigger.Dequeue, TicketState.InProgress)).toBe(false);
    expect(canTransition(LifecycleTrigger.StaleRevert, TicketState.Enqueued)).toBe(false);
    expect(canTransition(LifecycleTrigger.Fail, TicketState.InProgress)).toBe(true);
  });

  it('cancels a queued, running or parked ticket into Failed, and nothing that has ended', () => {
    expect(TRANSITIONS[LifecycleTrigger.Cancel].to).toBe(TicketState.Failed);
    expect(canTransition(LifecycleTrigger.Cancel, TicketState.Enqueued)).toBe(true);
    expect(canTransition(LifecycleTrigger.Cancel, TicketState.InProgress)).toBe(true);
    expect(canTransition(LifecycleTrigger.Cancel, TicketState.Parked)).toBe(true);
    for (const ended of [TicketState.Pending, TicketState.Done, TicketState.Failed]) expect(canTransition(LifecycleTrigger.Cancel, ended)).toBe(false);
  });

  it('parks only a running ticket, and an answer makes only a parked one claimable again', () => {
    expect(TRANSITIONS[LifecycleTrigger.Park].to).toBe(TicketState.Parked);
    expect(canTransition(LifecycleTrigger.Park, TicketState.InProgress)).toBe(true);
    for (const other of [TicketState.Pending, TicketState.Enqueued, TicketState.Done, TicketState.Failed, TicketState.Parked]) {
      expect(canTransition(LifecycleTrigger.Park, other)).toBe(false);
    }
    expect(TRANSITIONS[LifecycleTrigger.Answer].to).toBe(TicketState.Pending);
    expect(canTransition(LifecycleTrigger.Answer, TicketState.Parked)).toBe(true);
    for (const other of [TicketState.Pending, TicketState.Enqueued, TicketState.InProgress, TicketState.Done, TicketState.Failed]) {
      expect(canTransition(LifecycleTrigger.Answer, other)).toBe(false);
    }
  });

  it('never claims a parked ticket: its run still holds it', () => {
    expect(canTransition(LifecycleTrigger.Claim, TicketState.Parked)).toBe(false);
    expect(canTransition(LifecycleTrigger.StaleRevert, TicketState.Parked)).toBe(false);
  });

  it('names labels with the service: prefix', () => {
    expect(lifecycleLabel(TicketState.InProgress)).toBe('service:in-progress');
    expect(lifecycleLabel(TicketState.Enqueued)).toBe('service:enqueued');
    expect(lifecycleLabel(TicketState.Parked)).toBe('service:parked');
    expect(LIFECYCLE_LABELS).toContain('service:parked');
  });
});
