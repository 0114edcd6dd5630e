import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Life of one sandbox of a run. */
export const SandboxState = {
  Creating: 'creating',
  Ready: 'ready',
  Destroyed: 'destroyed',
  Failed: 'failed',
} as const;
export type SandboxState = (typeof SandboxState)[keyof typeof SandboxState];

/** One sandbox of a run: one per declared repository (routed by `path_prefix`), or one for a project without repositories. */
@Entity({ name: 'run_sandboxes' })
export class RunSandboxEntity {
  @PrimaryColumn({ type: 'uuid', name: 'run_id' }) runId: string;
  @PrimaryColumn({ type: 'text' }) repo: string;
  @Column({ type: 'text', name: 'path_prefix' }) pathPrefix: string;
  @Column({ type: 'text' }) state: SandboxState;
  @Column({ type: 'timestamptz', name: 'created_at' }) createdAt: Date;
}
