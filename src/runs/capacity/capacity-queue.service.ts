import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigService } from '../../config/config.service.js';
import { DatabaseService } from '../../database/database.service.js';
import { ACTIVE_RUN_STATES, RunState } from '../../database/entities/run.entity.js';
import { LeaderElectionService } from '../../leader/leader-election.service.js';
import { LeaseName } from '../../leader/lease-name.js';
import { SubsystemsService } from '../../store/subsystems.service.js';
import { BackgroundSubsystem } from '../../store/subsystem.js';
import { RunQueueService } from '../run-queue.service.js';
import { admitInOrder } from './admission-order.js';
import { type Footprint, footprintOf, sandboxCount } from './footprint.js';

/** How often the leader looks for runs to admit, and a waiting consumer for its admission. */
const ADMIT_EVERY_MS = 250;
const POLL_EVERY_MS = 100;

/**
 * The capacity queue. A run's footprint is its sandboxes' requests; the leader (lease
 * `capacity_queue`) admits waiting runs in claim order (`runs.queue_seq`) while the head fits
 * beside what admitted live runs hold, and stops at the first that does not: strict FIFO.
 * A waiting run stays `queued` and visible. Capacity is held in the database (admitted runs in a
 * queued or running state), so it is freed whenever a run ends or parks, by success, failure, a stale revert or a hand-back, and a
 * store flush loses nothing. No `capacity:` block means unbounded: runs admit themselves.
 */
@Injectable()
export class CapacityQueueService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('CapacityQueue');
  private timer: NodeJS.Timeout | null = null;
  private admitting: Promise<void> | null = null;

  constructor(
    private readonly db: DatabaseService,
    private readonly config: ConfigService,
    private readonly leader: LeaderElectionService,
    private readonly subsystems: SubsystemsService,
    private readonly queue: RunQueueService,
  ) {}

  onApplicationBootstrap(): void {
    this.leader.onChange(LeaseName.CapacityQueue, (held) => {
      if (this.timer) clearInterval(this.timer);
      this.timer = held ? setInterval(() => void this.admit(), ADMIT_EVERY_MS) : null;
      if (held) void this.admit();
    });
  }

  /** The footprint of a run of `project`. */
  footprintFor(project: string): Footprint {
    const config = this.config.config;
    return footprintOf(sandboxCount(config.projects[project]), config.sandbox);
  }

  /**
   * `admitted` once the run is admitted; `gone` when it is no longer queued; `not-yet` when it is
   * still waiting after `waitMs` or `stop()` says the consumer is closing.
   */
  async waitForAdmission(runId: string, footprint: Footprint, waitMs: number, stop: () => boolean): Promise<'admitted' | 'gone' | 'not-yet'> {
    const deadline = Date.now() + waitMs;
    let justAdmitted = false;
    for (;;) {
      if (this.config.config.capacity === null) {
        await this.db.dataSource.query(
          `UPDATE runs SET admitted_at = now(), cpu_request = $2, memory_request = $3
           WHERE id = $1 AND state = 'queued' AND admitted_at IS NULL`, [runId, footprint.cpu, footprint.memory]);
      }
      const rows: { state: RunState; admitted: boolean }[] = await this.db.dataSource.query(
        'SELECT state, admitted_at IS NOT NULL AS admitted FROM runs WHERE id = $1', [runId]);
      const row = rows[0];
      if (!row || row.state !== RunState.Queued) return 'gone';
      if (row.admitted) return 'admitted';
      if (stop() || Date.now() >= deadline) return 'not-yet';
      // On the leader, admit at once and look again without waiting.
      if (!justAdmitted && this.leader.isLeader(LeaseName.CapacityQueue)) {
        await this.admit();
        justAdmitted = true;
        continue;
      }
      justAdmitted = false;
      await sleep(POLL_EVERY_MS);
    }
  }

  /** What admitted queued or running runs hold: the capacity in use (also with no `capacity:` block). A parked run holds none. */
  async inUse(): Promise<Footprint> {
    const used: { cpu: number | null; memory: string | null }[] = await this.db.dataSource.query(
      `SELECT SUM(cpu_request) AS cpu, SUM(memory_request) AS memory FROM runs
       WHERE admitted_at IS NOT NULL AND state = ANY($1::text[])`, [ACTIVE_RUN_STATES]);
    return { cpu: Number(used[0]?.cpu ?? 0), memory: Number(used[0]?.memory ?? 0) };
  }

  /** Leader only: admits waiting runs in strict FIFO order. Concurrent calls share one pass. */
  admit(): Promise<void> {
    if (!this.leader.isLeader(LeaseName.CapacityQueue) || !this.db.isReady) return Promise.resolve();
    this.admitting ??= this.admitPass().finally(() => {
      this.admitting = null;
    });
    return this.admitting;
  }

  private async admitPass(): Promise<void> {
    const capacity = this.config.config.capacity;
    try {
      const waiting: { id: string; project: string }[] = await this.db.dataSource.query(
        `SELECT id, project FROM runs WHERE state = 'queued' AND admitted_at IS NULL ORDER BY queue_seq`);
      if (waiting.length === 0) return;
      const admit = admitInOrder(waiting.map((w) => ({ id: w.id, footprint: this.footprintFor(w.project) })), await this.inUse(), capacity);
      for (const run of admit) {
        await this.db.dataSource.query(
          `UPDATE runs SET admitted_at = now(), cpu_request = $2, memory_request = $3
           WHERE id = $1 AND state = 'queued' AND admitted_at IS NULL`, [run.id, run.footprint.cpu, run.footprint.memory]);
      }
      if (admit.length > 0) this.logger.debug(`admitted ${admit.length} run(s); ${waiting.length - admit.length} waiting`);
      if (capacity !== null) await this.wakeAdmitted();
      this.subsystems.set(BackgroundSubsystem.CapacityQueue, 'up', capacity ? `leader; ${waiting.length - admit.length} run(s) waiting` : 'leader; capacity unbounded');
    } catch (error) {
      this.subsystems.set(BackgroundSubsystem.CapacityQueue, 'degraded', `admission crashed, retrying: ${(error as Error).message}`);
    }
  }

  /**
   * Admitted runs whose request was deferred (it waited in the queue as delayed, leaving its slot
   * to others) are made available to consumers: every pass, so an admission that crossed a
   * deferral is never left waiting for the delay.
   */
  private async wakeAdmitted(): Promise<void> {
    const admitted: { id: string }[] = await this.db.dataSource.query(
      `SELECT id FROM runs WHERE state = 'queued' AND admitted_at IS NOT NULL ORDER BY queue_seq`);
    for (const run of admitted) await this.queue.promoteIfDelayed(run.id);
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
