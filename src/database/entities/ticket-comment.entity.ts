import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A comment the service posted (or is posting) on a ticket once per run and kind (migration 0004). */
@Entity({ name: 'ticket_comments' })
export class TicketCommentEntity {
  @PrimaryColumn({ type: 'uuid', name: 'run_id' }) runId: string;
  @PrimaryColumn({ type: 'text' }) kind: string;
  @Column({ type: 'text' }) platform: string;
  @Column({ type: 'text' }) project: string;
  @Column({ type: 'text' }) ticket: string;
  @Column({ type: 'text' }) state: 'posting' | 'posted';
  @Column({ type: 'text', name: 'comment_id', nullable: true }) commentId: string | null;
  @Column({ type: 'text', name: 'claimed_by', nullable: true }) claimedBy: string | null;
  @Column({ type: 'timestamptz', name: 'claimed_at' }) claimedAt: Date;
  @Column({ type: 'timestamptz', name: 'posted_at', nullable: true }) postedAt: Date | null;
}
