import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One line of a run's story: a step starting, output, an outcome. */
@Entity({ name: 'run_events' })
export class RunEventEntity {
  @PrimaryColumn({ type: 'uuid', name: 'run_id' }) runId: string;
  @PrimaryColumn({ type: 'integer' }) seq: number;
  @Column({ type: 'timestamptz' }) at: Date;
  @Column({ type: 'text' }) kind: string;
  @Column({ type: 'text', nullable: true }) sandbox: string | null;
  @Column({ type: 'text' }) text: string;
}
