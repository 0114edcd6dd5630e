import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An output a run keeps beyond its events (a SARIF file, a markdown report); one per name and run. */
@Entity({ name: 'run_artifacts' })
export class RunArtifactEntity {
  @PrimaryColumn({ type: 'uuid', name: 'run_id' }) runId: string;
  @PrimaryColumn({ type: 'text' }) name: string;
  @Column({ type: 'text', name: 'media_type' }) mediaType: string;
  /** UTF-8 bytes of the content. */
  @Column({ type: 'bytea' }) content: Buffer;
  @Column({ type: 'integer', name: 'size_bytes' }) sizeBytes: number;
  @Column({ type: 'timestamptz', name: 'created_at' }) createdAt: Date;
}
