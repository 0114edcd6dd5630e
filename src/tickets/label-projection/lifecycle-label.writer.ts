import { Inject, Injectable } from '@nestjs/common';
import type { TicketState } from '../../database/entities/ticket.entity.js';
import { traitsOf } from '../../platforms/platform-traits.registry.js';
import { isLifecycleLabel } from '../../platforms/tracker-client.js';
import { LockService } from '../../store/lock.service.js';
import { StoreConnectionService } from '../../store/store-connection.service.js';
import { lifecycleLabel } from '../lifecycle.js';
import type { TicketKey } from '../ticket-key.js';
import { HostRateLimiter } from './host-rate-limiter.service.js';
import { LABEL_PROJECTION_OPTIONS, type LabelProjectionOptions } from './label-projection.options.js';
import type { ProjectTracker } from './project-tracker.factory.js';

export type LabelWriteResult =
  | { outcome: 'Updated'; label: string; rounds: number }
  | { outcome: 'Unchanged'; label: string }
  | { outcome: 'PreconditionFailed'; reason: string };

/**
 * Writes a ticket's lifecycle label with the spec's atomicity per platform:
 * - A (GitHub): read → full labels array with `If-Match: <ETag>`; 412 → `PreconditionFailed`;
 * - C (Azure DevOps): JSON Patch `test /rev` + `replace /fields/System.Tags`; 409/412 → same;
 * - B (GitLab): `add_labels`/`remove_labels` of lifecycle labels only; last write wins;
 * - D (Jira): the read and write run under an extra 10 s store lock
 *   `svc:labellock:<platform>:<project>:<ticket>`; a held lock → `PreconditionFailed`.
 * A precondition failure re-reads (the ticket, and the state to write) and tries again, a bounded
 * number of rounds. The state written is asked for on every round (`stateNow`: the database's
 * current state) and once more after a write, so a late writer never leaves an older state
 * behind. Foreign labels are kept as read; a ticket already carrying the wanted label is not written.
 */
@Injectable()
export class LifecycleLabelWriter {
  constructor(
    private readonly limiter: HostRateLimiter,
    private readonly locks: LockService,
    private readonly store: StoreConnectionService,
    @Inject(LABEL_PROJECTION_OPTIONS) private readonly options: LabelProjectionOptions,
  ) {}

  async write(tracker: ProjectTracker, key: TicketKey, stateNow: () => Promise<TicketState>): Promise<LabelWriteResult> {
    if (traitsOf(tracker.platform).conditionalLabelWrites) return this.conditionalRounds(tracker, key, stateNow);
    const lockKey = this.store.key('labellock', key.platform, key.project, key.ticket);
    const held = await this.locks.withLock(lockKey, this.options.labelLockMs, () => this.conditionalRounds(tracker, key, stateNow));
    return held ? held.value : { outcome: 'PreconditionFailed', reason: `label lock ${lockKey} is held by another writer` };
  }

  private async conditionalRounds(tracker: ProjectTracker, key: TicketKey, stateNow: () => Promise<TicketState>): Promise<LabelWriteResult> {
    const rounds = 1 + Math.max(0, this.options.preconditionRetries);
    for (let round = 1; round <= rounds; round++) {
      // The ticket first, then the state: a conditional write (A, C) then also fails when another
      // writer put a newer state on the ticket after our state was read.
      const read = await tracker.client.readTicket(key.ticket);
      const label = lifecycleLabel(await stateNow());
      const present = read.labels.filter(isLifecycleLabel);
      if (present.length === 1 && present[0] === label) return { outcome: 'Unchanged', label };
      await this.limiter.take(tracker.platform, tracker.host);
      const result = await tracker.client.replaceLifecycleLabel(key.ticket, label, read);
      if (result.outcome !== 'Updated') continue;
      // B's writes are unconditional and D's lock can expire during a slow write: a state committed
      // meanwhile (whose own writer may already have finished) is written in another round.
      if (lifecycleLabel(await stateNow()) === label) return { outcome: 'Updated', label, rounds: round };
    }
    return { outcome: 'PreconditionFailed', reason: `the ticket changed between read and write ${rounds} times in a row` };
  }
}
