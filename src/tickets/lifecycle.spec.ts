import { describe, expect, it } from 'vitest';
import { TicketState } from '../database/entities/ticket.entity.js';
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

  it('cancels a queued or running ticket into Failed, and nothing that has ended', () => {
    expect(TRANSITIONS[LifecycleTrigger.Cancel].to).toBe(TicketState.Failed);
    expect(canTransition(LifecycleTrigger.Cancel, TicketState.Enqueued)).toBe(true);
    expect(canTransition(LifecycleTrigger.Cancel, TicketState.InProgress)).toBe(true);
    for (const ended of [TicketState.Pending, TicketState.Done, TicketState.Failed]) expect(canTransition(LifecycleTrigger.Cancel, ended)).toBe(false);
  });

  it('names labels with the service: prefix', () => {
    expect(lifecycleLabel(TicketState.InProgress)).toBe('service:in-progress');
    expect(lifecycleLabel(TicketState.Enqueued)).toBe('service:enqueued');
  });
});
