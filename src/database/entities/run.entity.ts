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

@Entity({ name: 'runs' })
export class RunEntity {
  @PrimaryColumn({ type: 'uuid' }) id: string;
  @Column({ type: 'text' }) platform: string;
  @Column({ type: 'text' }) project: string;
  @Column({ type: 'text', nullable: true }) ticket: string | null;
  @Column({ type: 'text' }) pipeline: string;
  @Column({ type: 'text' }) state: RunState;
  @Column({ type: 'timestamptz', name: 'created_at' }) createdAt: Date;
  @Column({ type: 'timestamptz', name: 'started_at', nullable: true }) startedAt: Date | null;
  @Column({ type: 'timestamptz', name: 'finished_at', nullable: true }) finishedAt: Date | null;
  @Column({ type: 'jsonb', nullable: true }) result: unknown;
  @Column({ type: 'text', nullable: true }) error: string | null;
}
