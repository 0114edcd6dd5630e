import { describe, expect, it } from 'vitest';
import type { PolledTicket } from '../platforms/tracker-client.js';
import { PollMemory } from './poll-memory.js';

const polled = (ticket: string, updatedAt: string): PolledTicket => ({
  ticket, updatedAt, status: null, labels: [], title: null, description: null, url: null, concurrencyToken: null,
});

describe('PollMemory', () => {
  it('holds a ticket settled only while the tracker shows the same update time', () => {
    const memory = new PollMemory();
    memory.settle(polled('7', '2026-11-24T10:00:00Z'));
    expect(memory.isSettled(polled('7', '2026-11-24T10:00:00Z'))).toBe(true);
    expect(memory.isSettled(polled('7', '2026-11-24T10:00:05Z'))).toBe(false);
    expect(memory.isSettled(polled('8', '2026-11-24T10:00:00Z'))).toBe(false);
  });

  it('carries a ticket into the next cycle once, a fresh read of it winning', () => {
    const memory = new PollMemory();
    memory.carry(polled('7', 'old'));
    memory.carry(polled('9', 'old'));
    expect(memory.withCarried([polled('7', 'new')])).toEqual([polled('7', 'new'), polled('9', 'old')]);
    expect(memory.withCarried([])).toEqual([]);
  });

  it('forgets after a full sweep what no longer shows a trigger, and then counts as swept', () => {
    const memory = new PollMemory();
    memory.settle(polled('7', 't'));
    memory.settle(polled('8', 't'));
    expect(memory.swept).toBe(false);
    memory.keepOnly([polled('8', 't')]);
    expect(memory.swept).toBe(true);
    expect(memory.isSettled(polled('7', 't'))).toBe(false);
    expect(memory.isSettled(polled('8', 't'))).toBe(true);
  });
});
