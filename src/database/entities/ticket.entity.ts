import { Column, Entity, PrimaryColumn } from 'typeorm';

export const TicketState = {
  Pending: 'pending',
  Enqueued: 'enqueued',
  InProgress: 'in_progress',
  Done: 'done',
  Failed: 'failed',
  /** The run handed the ticket back (the agent's `ask`): waiting for an answer or a retry (migration 0013). */
  Parked: 'parked',
} as const;
export type TicketState = (typeof TicketState)[keyof typeof TicketState];

/** A ticket's lifecycle state: the system of record; tracker labels only mirror it. */
@Entity({ name: 'tickets' })
export class TicketEntity {
  @PrimaryColumn({ type: 'text' }) platform: string;
  @PrimaryColumn({ type: 'text' }) project: string;
  @PrimaryColumn({ type: 'text' }) ticket: string;
  @Column({ type: 'text' }) state: TicketState;
  @Column({ type: 'text', nullable: true }) pipeline: string | null;
  @Column({ type: 'uuid', name: 'run_id', nullable: true }) runId: string | null;
  @Column({ type: 'timestamptz', name: 'created_at' }) createdAt: Date;
  @Column({ type: 'timestamptz', name: 'updated_at' }) updatedAt: Date;
}
