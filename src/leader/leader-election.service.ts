import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '../config/config.service.js';
import { InstanceIdentity } from '../store/instance-identity.service.js';
import { LockService } from '../store/lock.service.js';
import { StoreConnectionService } from '../store/store-connection.service.js';
import { SubsystemsService } from '../store/subsystems.service.js';
import { LeaderLease, type LeaseListener } from './leader-lease.js';
import { LEASE_SUBSYSTEM, LeaseName } from './lease-name.js';

/**
 * Holds (or waits for) the three leader leases: `poller`, `housekeeping` and `capacity_queue`.
 * Each is tried and renewed every third of `queue.lease_ttl_seconds`; a single replica ends up
 * holding all three. Without KVSTORE_URL nothing starts and the subsystems stay `disabled`.
 */
@Injectable()
export class LeaderElectionService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('LeaderElection');
  private readonly leases = new Map<LeaseName, LeaderLease>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: StoreConnectionService,
    private readonly locks: LockService,
    private readonly config: ConfigService,
    private readonly subsystems: SubsystemsService,
    private readonly instance: InstanceIdentity,
  ) {
    if (!store.isConfigured) return;
    const ttlMs = config.config.queue.lease_ttl_seconds * 1000;
    for (const name of Object.values(LeaseName)) {
      const lease = new LeaderLease(store.key('leader', name), instance.id, ttlMs, locks);
      lease.onChange((held, why) => {
        this.logger.log(`${name}: ${held ? 'leader' : 'no longer leader'} (${why})`);
        this.report(name);
      });
      this.leases.set(name, lease);
    }
  }

  onApplicationBootstrap(): void {
    if (!this.store.isConfigured) return;
    for (const name of this.leases.keys()) this.report(name);
    this.store.onStateChange(() => {
      for (const name of this.leases.keys()) this.report(name);
      void this.tickAll();
    });
    const everyMs = Math.max(200, Math.floor((this.config.config.queue.lease_ttl_seconds * 1000) / 3));
    this.timer = setInterval(() => void this.tickAll(), everyMs);
    void this.tickAll();
  }

  isLeader(name: LeaseName): boolean {
    return this.leases.get(name)?.held ?? false;
  }

  /** `listener(true)` when this replica becomes the leader for `name`, `(false)` when it stops. */
  onChange(name: LeaseName, listener: LeaseListener): void {
    this.leases.get(name)?.onChange(listener);
  }

  private async tickAll(): Promise<void> {
    const connected = this.store.isConnected;
    await Promise.all([...this.leases.values()].map((lease) => lease.tick(connected)));
  }

  private report(name: LeaseName): void {
    const subsystem = LEASE_SUBSYSTEM[name];
    if (!this.store.isConnected) {
      this.subsystems.set(subsystem, 'degraded', `store not connected; retrying every ${this.config.config.queue.redis_retry_interval_seconds} s`);
    } else if (this.isLeader(name)) {
      this.subsystems.set(subsystem, 'up', `leader (${this.instance.id})`);
    } else {
      this.subsystems.set(subsystem, 'up', 'standby: another replica holds the lease');
    }
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await Promise.all([...this.leases.values()].map((lease) => lease.release()));
  }
}
