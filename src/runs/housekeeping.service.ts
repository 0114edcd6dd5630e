import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '../config/config.service.js';
import { DatabaseService } from '../database/database.service.js';
import { LeaderElectionService } from '../leader/leader-election.service.js';
import { LeaseName } from '../leader/lease-name.js';
import { InstanceIdentity } from '../store/instance-identity.service.js';
import { SubsystemsService } from '../store/subsystems.service.js';
import { BackgroundSubsystem } from '../store/subsystem.js';
import type { SandboxBackend } from '../sandbox/sandbox-backend.js';
import { SANDBOX_BACKEND } from '../sandbox/sandbox.tokens.js';
import { ReconcilerService } from './reconciler.service.js';
import { RunRecordsService } from './run-records.service.js';
import { RunRetentionService } from './run-retention.service.js';
import { StaleJobDetectorService } from './stale-job-detector.service.js';

/** Retention by the day needs no more than an hourly pass. */
const RETENTION_EVERY_MS = 60 * 60 * 1000;

/**
 * Housekeeping: while this replica holds the `housekeeping` lease, the stale-job detector runs
 * every `queue.stale_scan_interval_seconds`, the reconciler every
 * `queue.reconcile_interval_seconds` (with the sweep of sandboxes whose runs are no longer live) and run retention hourly (each once at once on taking the
 * lease). A pass that throws leaves the subsystem `degraded` (retrying) until a pass succeeds.
 */
@Injectable()
export class HousekeepingService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Housekeeping');
  private timers: NodeJS.Timeout[] = [];
  private retentionDueAt = 0;
  private retaining = false;

  constructor(
    private readonly leader: LeaderElectionService,
    private readonly detector: StaleJobDetectorService,
    private readonly reconciler: ReconcilerService,
    private readonly retention: RunRetentionService,
    private readonly db: DatabaseService,
    private readonly config: ConfigService,
    private readonly subsystems: SubsystemsService,
    private readonly instance: InstanceIdentity,
    private readonly records: RunRecordsService,
    @Inject(SANDBOX_BACKEND) private readonly backend: SandboxBackend,
  ) {}

  onApplicationBootstrap(): void {
    this.leader.onChange(LeaseName.Housekeeping, (held) => (held ? this.start() : this.stop()));
  }

  private start(): void {
    this.stop();
    const q = this.config.config.queue;
    const scan = () => void this.guarded('stale-job detection', () => this.detector.scan());
    const reconcile = () => {
      void this.guarded('reconciliation', () => this.reconciler.reconcile());
      void this.guarded('sandbox sweep', () => this.sweepSandboxes());
    };
    // Looked at on the scan's tick, so a pass skipped (database not ready) or failed is retried soon.
    this.retentionDueAt = 0;
    const retain = () => void this.retainIfDue();
    this.timers = [
      setInterval(scan, q.stale_scan_interval_seconds * 1000),
      setInterval(reconcile, q.reconcile_interval_seconds * 1000),
      setInterval(retain, q.stale_scan_interval_seconds * 1000),
    ];
    scan();
    reconcile();
    retain();
  }

  /** Hourly; sooner while a backlog remains past one pass's cap. Stops between batches once the lease is lost. */
  private async retainIfDue(): Promise<void> {
    if (this.retaining || Date.now() < this.retentionDueAt) return;
    this.retaining = true;
    try {
      await this.guarded('run retention', async () => {
        const pass = await this.retention.pass(() => this.leader.isLeader(LeaseName.Housekeeping));
        this.retentionDueAt = pass.complete ? Date.now() + RETENTION_EVERY_MS : 0;
      });
    } finally {
      this.retaining = false;
    }
  }

  /**
   * Containers and pods of runs that are no longer live (their process was killed, or crashed
   * before it could destroy them) are removed; the in-process backend has none to sweep.
   */
  private async sweepSandboxes(): Promise<void> {
    if (!this.backend.sweep) return;
    const removed = await this.backend.sweep((runId) => this.records.mayHoldSandboxes(runId));
    if (removed > 0) this.logger.log(`removed ${removed} sandbox(es) of runs that are no longer live`);
  }

  private stop(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
  }

  private async guarded(task: string, work: () => Promise<unknown>): Promise<void> {
    if (!this.leader.isLeader(LeaseName.Housekeeping)) return;
    if (!this.db.isReady) return; // the consumer reports the database; the next pass retries
    try {
      await work();
      this.subsystems.set(BackgroundSubsystem.Housekeeping, 'up', `leader (${this.instance.id})`);
    } catch (error) {
      this.logger.warn(`${task} failed, retrying: ${(error as Error).message}`);
      this.subsystems.set(BackgroundSubsystem.Housekeeping, 'degraded', `${task} crashed, retrying: ${(error as Error).message}`);
    }
  }

  onApplicationShutdown(): void {
    this.stop();
  }
}
