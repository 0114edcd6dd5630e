import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Run states of the contract's run resource. */
export const RunState = {
  Queued: 'queued',
  Running: 'running',
  Parked: 'parked',
  Succeeded: 'succeeded',
  Failed: 'failed',
  Cancelled: 'cancelled',
} as const;
export type RunState = (typeof RunState)[keyof typeof RunState];
export const LIVE_RUN_STATES: readonly RunState[] = [RunState.Queued, RunState.Running, RunState.Parked];
/**
 * Live states in which a run may hold capacity and sandboxes. A parked run is live (it holds its
 * ticket) but executes nothing: its sandboxes are gone and what it was admitted with is free.
 */
export const ACTIVE_RUN_STATES: readonly RunState[] = [RunState.Queued, RunState.Running];

@Entity({ name: 'runs' })
export class RunEntity {
  @PrimaryColumn({ type: 'uuid' }) id: string;
  @Column({ type: 'text' }) platform: string;
  @Column({ type: 'text' }) project: string;
  @Column({ type: 'text', nullable: true }) ticket: string | null;
  @Column({ type: 'text' }) pipeline: string;
  /** The pull request a ticket-less run targets (migration 0011). */
  @Column({ type: 'jsonb', nullable: true }) target: { repo: string; number: number } | null;
  @Column({ type: 'text' }) state: RunState;
  @Column({ type: 'timestamptz', name: 'created_at' }) createdAt: Date;
  @Column({ type: 'timestamptz', name: 'started_at', nullable: true }) startedAt: Date | null;
  @Column({ type: 'timestamptz', name: 'finished_at', nullable: true }) finishedAt: Date | null;
  @Column({ type: 'jsonb', nullable: true }) result: unknown;
  @Column({ type: 'text', nullable: true }) error: string | null;
  /** Claim order; the capacity queue admits in this order (migration 0005). */
  @Column({ type: 'bigint', name: 'queue_seq', insert: false, update: false }) queueSeq: string;
  /** Instance id of the consumer that took the run. */
  @Column({ type: 'text', nullable: true }) owner: string | null;
  @Column({ type: 'timestamptz', name: 'heartbeat_at', nullable: true }) heartbeatAt: Date | null;
  @Column({ type: 'timestamptz', name: 'admitted_at', nullable: true }) admittedAt: Date | null;
  @Column({ type: 'double precision', name: 'cpu_request', nullable: true }) cpuRequest: number | null;
  @Column({ type: 'bigint', name: 'memory_request', nullable: true }) memoryRequest: string | null;
}
