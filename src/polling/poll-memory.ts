import type { PolledTicket } from '../platforms/tracker-client.js';

/**
 * What one project's poll task remembers between cycles, in memory, for as long as this replica
 * polls it. A cursor's overlap and every full sweep show the same unchanged tickets again; a
 * ticket already settled at the same tracker time (rejected, or ended with no trigger put back
 * since its run) is not judged again, so it costs no history request and no trigger-log row
 * each minute. A live or newly claimed ticket is not remembered: the database says so cheaply.
 */
export class PollMemory {
  /** Ticket → the tracker's `updatedAt` at which it was settled. */
  private readonly settled = new Map<string, string>();
  /** Tickets whose claim met another delivery's claim lock: judged again next cycle. */
  private readonly carried = new Map<string, PolledTicket>();
  /** Whether a full sweep completed since the task started (its first cycle sweeps in full). */
  swept = false;

  isSettled(ticket: PolledTicket): boolean {
    return this.settled.get(ticket.ticket) === ticket.updatedAt;
  }

  settle(ticket: PolledTicket): void {
    this.settled.set(ticket.ticket, ticket.updatedAt);
  }

  /** Judge `ticket` again next cycle even if the tracker does not show it as changed. */
  carry(ticket: PolledTicket): void {
    this.carried.set(ticket.ticket, ticket);
  }

  /** The polled tickets plus those carried over (a fresh read wins). */
  withCarried(polled: readonly PolledTicket[]): PolledTicket[] {
    const fresh = new Set(polled.map((t) => t.ticket));
    const out = [...polled, ...[...this.carried.values()].filter((t) => !fresh.has(t.ticket))];
    this.carried.clear();
    return out;
  }

  /** After a full sweep: forget tickets that no longer show a trigger (bounds the memory). */
  keepOnly(polled: readonly PolledTicket[]): void {
    const present = new Set(polled.map((t) => t.ticket));
    for (const ticket of this.settled.keys()) if (!present.has(ticket)) this.settled.delete(ticket);
    this.swept = true;
  }
}
