import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { TrackerError } from '../../platforms/tracker-client.js';
import { HostRateLimiter } from './host-rate-limiter.service.js';
import { LABEL_PROJECTION_OPTIONS, type LabelProjectionOptions } from './label-projection.options.js';
import type { ProjectTracker } from './project-tracker.factory.js';

/** What the probe needs from the projection. */
export interface RecoveryTarget {
  /** Whether anything still waits for the host (else probing it stops). */
  waitingOn(hostId: string): boolean;
  /** The host answers again: retry what waits for it now. */
  retryHost(hostId: string): void;
}

interface WatchedHost {
  id: string;
  tracker: ProjectTracker;
  /** A ticket of the host to read: any answer but "down" or "busy" (even a 404) shows it serves again. */
  ticket: string;
  intervalMs: number;
  timer: NodeJS.Timeout | null;
  probing: boolean;
  /** When a probe last saw the host answer and its waiting tickets were retried; null while it is down. */
  recoveredAt: number | null;
}

/** The key of a tracker API host, as the write budgets key it. */
export function hostIdOf(tracker: Pick<ProjectTracker, 'platform' | 'host'>): string {
  return `${tracker.platform} ${tracker.host}`;
}

/**
 * Notices a tracker host answering again while labels wait for it, so they are written within
 * seconds instead of after the rest of a back-off or the next stale round. A host whose requests
 * fail as a host that is down fails (network, timeout, 5xx, 429) is read once per
 * `recoveryProbeMs` (one HTTP try, no write); never while it holds writes for a wait it asked
 * for. When it answers, or any other request to it succeeds, what waits for it is retried; the
 * retries' writes still take the host's write tokens. A host that answers the probe while the
 * retries keep failing (reads served, writes not) is probed half as often each time, down to
 * once per stale round, so that it is never retried faster than the probe finds it answering.
 */
@Injectable()
export class HostRecoveryProbe implements OnApplicationShutdown {
  private readonly logger = new Logger('LabelProjection');
  private readonly hosts = new Map<string, WatchedHost>();
  private target: RecoveryTarget | null = null;
  private closing = false;

  constructor(
    private readonly limiter: HostRateLimiter,
    @Inject(LABEL_PROJECTION_OPTIONS) private readonly options: LabelProjectionOptions,
  ) {}

  attach(target: RecoveryTarget): void {
    this.target = target;
  }

  onApplicationShutdown(): void {
    this.closing = true;
    for (const host of this.hosts.values()) if (host.timer) clearTimeout(host.timer);
    this.hosts.clear();
  }

  /** Hosts being probed (down, as far as the projection knows). */
  watchedHosts(): string[] {
    return [...this.hosts.values()].filter((h) => h.recoveredAt === null).map((h) => h.id);
  }

  /** A request to the tracker's host failed as a host that is down fails: probe it (reading `ticket`) until it answers. */
  hostDown(tracker: ProjectTracker, ticket: string): void {
    if (this.closing) return;
    const id = hostIdOf(tracker);
    const host = this.hosts.get(id) ?? { id, tracker, ticket, intervalMs: this.options.recoveryProbeMs, timer: null, probing: false, recoveredAt: null };
    host.tracker = tracker;
    host.ticket = ticket;
    if (host.recoveredAt !== null) {
      const falseAlarm = Date.now() - host.recoveredAt < this.options.staleRetryMs;
      const slowest = Math.max(this.options.recoveryProbeMs, this.options.staleRetryMs);
      host.intervalMs = falseAlarm ? Math.min(host.intervalMs * 2, slowest) : this.options.recoveryProbeMs;
      host.recoveredAt = null;
    }
    this.hosts.set(id, host);
    if (!host.timer && !host.probing) this.schedule(host, host.intervalMs);
  }

  /** A request to the tracker's host succeeded: it is no longer watched, and what waited for it is retried. */
  hostAnswered(tracker: ProjectTracker): void {
    const host = this.hosts.get(hostIdOf(tracker));
    if (!host) return;
    this.forget(host);
    if (host.recoveredAt === null) this.recovered(host, 'a request to it succeeded');
  }

  private forget(host: WatchedHost): void {
    if (host.timer) clearTimeout(host.timer);
    host.timer = null;
    if (this.hosts.get(host.id) === host) this.hosts.delete(host.id);
  }

  private recovered(host: WatchedHost, how: string): void {
    this.logger.log(`tracker ${host.id} answers again (${how})`);
    this.target?.retryHost(host.id);
  }

  private schedule(host: WatchedHost, delayMs: number): void {
    host.timer = setTimeout(() => {
      host.timer = null;
      void this.probe(host);
    }, delayMs);
    host.timer.unref();
  }

  private async probe(host: WatchedHost): Promise<void> {
    if (this.closing || this.hosts.get(host.id) !== host) return;
    if (!this.target?.waitingOn(host.id)) {
      this.forget(host);
      return;
    }
    const held = this.limiter.heldForMs(host.tracker.platform, host.tracker.host);
    if (held > 0) {
      this.schedule(host, held); // the host asked for a wait: nothing is sent before it ends
      return;
    }
    host.probing = true;
    const started = Date.now();
    let answered = false;
    try {
      await host.tracker.prober.readTicket(host.ticket);
      answered = true;
    } catch (error) {
      if (error instanceof TrackerError) {
        answered = !error.retryable;
        if (error.retryAfterMs) this.limiter.backOff(host.tracker.platform, host.tracker.host, error.retryAfterMs);
      }
    } finally {
      host.probing = false;
    }
    if (this.closing || this.hosts.get(host.id) !== host) return;
    if (answered) {
      host.recoveredAt = Date.now();
      this.recovered(host, 'probe');
      return;
    }
    this.schedule(host, Math.max(0, host.intervalMs - (Date.now() - started)));
  }
}
