import { Inject, Injectable } from '@nestjs/common';
import type { ServiceConfig } from '../config/service-config.js';
import { InstanceIdentity } from '../store/instance-identity.service.js';
import { LABEL_PROJECTION_OPTIONS, type LabelProjectionOptions } from '../tickets/label-projection/label-projection.options.js';
import { projectTrackerOf } from '../tickets/label-projection/project-tracker.factory.js';
import { POLLING_OPTIONS, type PollingOptions } from './polling.options.js';
import { type PollTarget, fingerprintOf, pollingTrigger, triggerSetOf } from './poll-target.js';

/** A project with polling on that cannot be polled, and why (a finding names it). */
export interface Unpollable {
  project: string;
  reason: string;
  fingerprint: string;
}

/**
 * The projects to poll, from the configuration: those whose tracker's trigger block has
 * `polling.enabled`. Each gets tracker clients of its own, built like the label projection's
 * (same credentials and API host, hence the same per-host budget) but with the poller's HTTP
 * settings and a User-Agent naming the replica, so a tracker's access log shows who polls.
 */
@Injectable()
export class PollTargetsService {
  constructor(
    @Inject(LABEL_PROJECTION_OPTIONS) private readonly projection: LabelProjectionOptions,
    @Inject(POLLING_OPTIONS) private readonly options: PollingOptions,
    private readonly instance: InstanceIdentity,
  ) {}

  get userAgent(): string {
    return `pipeline-service poller (${this.instance.id})`;
  }

  build(config: ServiceConfig): { targets: PollTarget[]; unpollable: Unpollable[] } {
    const targets: PollTarget[] = [];
    const unpollable: Unpollable[] = [];
    const http = { ...this.projection.http, ...this.options.http, userAgent: this.userAgent };
    for (const project of Object.values(config.projects)) {
      const trigger = pollingTrigger(project);
      if (trigger === null) continue;
      const triggers = triggerSetOf(trigger);
      // Nothing can trigger there: the configuration's own advisory finding says so.
      if (triggers.statuses.length === 0 && triggers.labels.length === 0) continue;
      const fingerprint = fingerprintOf(project);
      let tracker: ReturnType<typeof projectTrackerOf>;
      try {
        tracker = projectTrackerOf(project, { ...this.projection, http });
      } catch (error) {
        tracker = { unconfigured: (error as Error).message }; // e.g. a repository URL that is no URL
      }
      if ('unconfigured' in tracker) {
        unpollable.push({ project: project.name, fingerprint, reason: `polling is on but the tracker cannot be reached: ${tracker.unconfigured}` });
      } else if (typeof tracker.client.pollTickets !== 'function') {
        unpollable.push({ project: project.name, fingerprint, reason: `polling is on but this tracker (${project.tracker}) cannot be polled yet: its client has no poll read` });
      } else {
        targets.push({ project, tracker, trigger, polling: trigger.polling, triggers, fingerprint });
      }
    }
    return { targets, unpollable };
  }
}
