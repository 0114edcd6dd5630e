import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '../config/config.service.js';
import { DatabaseService } from '../database/database.service.js';
import { type Finding, FindingSubsystem, finding } from '../findings/finding.js';
import { FindingsService } from '../findings/findings.service.js';
import { LeaderElectionService } from '../leader/leader-election.service.js';
import { LeaseName } from '../leader/lease-name.js';
import { StoreConnectionService } from '../store/store-connection.service.js';
import { BackgroundSubsystem } from '../store/subsystem.js';
import { SubsystemsService } from '../store/subsystems.service.js';
import { type CycleReport, PollCycleService } from './poll-cycle.service.js';
import { pollingField } from './poll-target.js';
import { PollTargetsService, type Unpollable } from './poll-targets.service.js';
import { POLLING_OPTIONS, type PollingOptions } from './polling.options.js';
import { ProjectPoller, type ProjectPollerHost } from './project-poller.js';

const FINDINGS_PREFIX = 'poller:';

/**
 * The polling ingress: runs only while this replica holds the `poller` lease. On taking it, one
 * task per project whose tracker's trigger block has `polling.enabled`; on losing it every task
 * stops at once (a cycle under way stops between two tickets; claims it made stand, being the
 * database's). A configuration reload replaces the tasks whose project changed. Reports the
 * `poller` subsystem: `up` while polling (or idle), `degraded` while a project's poll fails and
 * is retried; projects that cannot be polled are findings naming them.
 */
@Injectable()
export class PollerService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Poller');
  private readonly tasks = new Map<string, ProjectPoller>();
  private unpollable: Unpollable[] = [];
  private readonly host: ProjectPollerHost;

  constructor(
    private readonly leader: LeaderElectionService,
    private readonly config: ConfigService,
    private readonly store: StoreConnectionService,
    private readonly findings: FindingsService,
    private readonly subsystems: SubsystemsService,
    private readonly targets: PollTargetsService,
    cycle: PollCycleService,
    db: DatabaseService,
    @Inject(POLLING_OPTIONS) options: PollingOptions,
  ) {
    this.host = {
      runCycle: (target, memory, active) => cycle.run(target, memory, active),
      ready: () => db.isReady,
      report: (project, found) => this.findings.set(`${FINDINGS_PREFIX}${project}`, found ? [found] : []),
      changed: () => this.report(),
      logger: this.logger,
      options,
    };
  }

  onApplicationBootstrap(): void {
    this.leader.onChange(LeaseName.Poller, (held) => (held ? this.reconcile() : this.stopAll()));
    if (this.leading()) this.reconcile();
    this.config.onReload(() => {
      if (this.leading()) this.reconcile();
    });
    // The lease's own report (store state, leader or standby) comes first; the leader's poll state then wins.
    this.store.onStateChange(() => this.report());
  }

  /** Projects being polled (leader only), for diagnostics and tests. */
  get polling(): string[] {
    return [...this.tasks.keys()];
  }

  /** The project's last successful cycle on this replica (null: none yet, or not polled here). */
  lastCycle(project: string): CycleReport | null {
    return this.tasks.get(project)?.lastReport ?? null;
  }

  private leading(): boolean {
    return this.leader.isLeader(LeaseName.Poller);
  }

  /** Starts, keeps or replaces each project's task to match the configuration. */
  private reconcile(): void {
    const { targets, unpollable } = this.targets.build(this.config.config);
    const wanted = new Map(targets.map((t) => [t.project.name, t]));
    for (const [name, task] of this.tasks) {
      if (wanted.get(name)?.fingerprint === task.target.fingerprint) continue;
      task.stop();
      this.tasks.delete(name);
      this.findings.clear(`${FINDINGS_PREFIX}${name}`);
    }
    for (const target of targets) {
      if (this.tasks.has(target.project.name)) continue;
      const task = new ProjectPoller(target, this.host, () => this.leading());
      this.tasks.set(target.project.name, task);
      task.start();
    }
    for (const gone of this.unpollable) if (!wanted.has(gone.project)) this.findings.clear(`${FINDINGS_PREFIX}${gone.project}`);
    this.unpollable = unpollable;
    for (const u of unpollable) this.findings.set(`${FINDINGS_PREFIX}${u.project}`, [this.unpollableFinding(u)]);
    if (this.tasks.size > 0 || unpollable.length > 0) {
      this.logger.log(`polling ${this.tasks.size} project(s)${unpollable.length > 0 ? `; ${unpollable.length} cannot be polled (see the findings)` : ''}`);
    }
    this.report();
  }

  /** Lease lost (or shutdown): every task stops; this replica no longer speaks for polling. */
  private stopAll(): void {
    for (const [name, task] of this.tasks) {
      task.stop();
      this.findings.clear(`${FINDINGS_PREFIX}${name}`);
    }
    for (const u of this.unpollable) this.findings.clear(`${FINDINGS_PREFIX}${u.project}`);
    if (this.tasks.size > 0) this.logger.log(`polling stopped: the ${LeaseName.Poller} lease is no longer held here`);
    this.tasks.clear();
    this.unpollable = [];
  }

  private unpollableFinding(u: Unpollable): Finding {
    const project = this.config.config.projects[u.project];
    const where = project ? pollingField(project) : { project: u.project };
    return finding(FindingSubsystem.Poller, 'blocking', `project ${u.project}: ${u.reason}`, where);
  }

  /** The leader's view of polling; a standby (or a replica without the store) keeps the lease's report. */
  private report(): void {
    if (!this.leading() || !this.store.isConnected) return;
    const failing = [...this.tasks.values()].map((t) => t.failing).filter((f): f is string => f !== null);
    const cannot = this.unpollable.length > 0 ? `; ${this.unpollable.length} cannot be polled` : '';
    const what = `leader; polling ${this.tasks.size} project(s)${cannot}`;
    if (failing.length > 0) this.subsystems.set(BackgroundSubsystem.Poller, 'degraded', `${what}; failing: ${failing.join('; ')}`);
    else this.subsystems.set(BackgroundSubsystem.Poller, 'up', what);
  }

  onApplicationShutdown(): void {
    for (const task of this.tasks.values()) task.stop();
    this.tasks.clear();
  }
}
