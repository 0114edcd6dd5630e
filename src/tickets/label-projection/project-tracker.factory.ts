import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '../../config/config.service.js';
import type { ProjectConfig, TriggerConfig } from '../../config/service-config.js';
import type { Platform } from '../../platforms/platform.js';
import { platformOf } from '../../platforms/platform-registry.js';
import type { TrackerHttpOptions } from '../../platforms/http/tracker-http.js';
import { TrackerError, type TrackerClient } from '../../platforms/tracker-client.js';
import { LABEL_PROJECTION_OPTIONS, type LabelProjectionOptions } from './label-projection.options.js';

/** Sent by the recovery probe's requests, so that a tracker's access log tells them apart. */
export const RECOVERY_PROBE_USER_AGENT = 'pipeline-service (label projection: is the tracker answering again?)';

/** A project's ticket tracker: the client, the API host its writes are budgeted under, its trigger block. */
export interface ProjectTracker {
  platform: Platform;
  client: TrackerClient;
  /**
   * The same tracker for the recovery probe: one HTTP try, timed out within a probe interval,
   * so probing a host that is down costs one request per interval.
   */
  prober: TrackerClient;
  /** Origin of the API the client talks to (the rate-limit key). */
  host: string;
  trigger: TriggerConfig | null;
}

/**
 * Builds the tracker client of a project from the current configuration, through its tracker
 * platform's descriptor (A/B from the project's repository on that platform, C/D from their
 * trigger blocks). Cached per project; a configuration reload drops the cache.
 */
@Injectable()
export class ProjectTrackerFactory {
  private readonly cache = new Map<string, ProjectTracker>();

  constructor(
    private readonly config: ConfigService,
    @Inject(LABEL_PROJECTION_OPTIONS) private readonly options: LabelProjectionOptions,
  ) {
    config.onReload(() => this.cache.clear());
  }

  /**
   * The project's tracker, or `{ unconfigured }` naming what is missing when the project gives
   * no way to reach it (no repository on the tracker's platform, no credentials): labels are then
   * not mirrored for that project, which is a configuration choice, not a failure.
   */
  forProject(name: string, platform: Platform): ProjectTracker | { unconfigured: string } {
    const cached = this.cache.get(name);
    if (cached && cached.platform === platform) return cached;
    const project = this.config.config.projects[name];
    if (!project) return { unconfigured: `project ${name} is not configured` };
    if (project.tracker !== platform) return { unconfigured: `project ${name} tracks its tickets on ${project.tracker}, not ${platform}` };
    const built = projectTrackerOf(project, this.options);
    if (!('unconfigured' in built)) this.cache.set(name, built);
    return built;
  }
}

/** A project's tracker from its configuration alone (the factory caches it; the CLI uses it as it is). */
export function projectTrackerOf(project: ProjectConfig, options: LabelProjectionOptions): ProjectTracker | { unconfigured: string } {
  const missing = missingSettings(project);
  if (missing) return { unconfigured: `project ${project.name}: ${missing}` };
  return build(project, options);
}

function missingSettings(project: ProjectConfig): string | null {
  const descriptor = platformOf(project.tracker);
  if (!descriptor) return `${project.tracker} is not a platform the service serves`;
  return descriptor.tracker.missingSettings(project);
}

function build(project: ProjectConfig, options: LabelProjectionOptions): ProjectTracker {
  const platform = project.tracker;
  const descriptor = platformOf(platform);
  if (!descriptor) throw new TrackerError(`project ${project.name} tracks its tickets on ${platform}, which the service does not serve`, platform, null, false);
  const http = options.http;
  const probeHttp: TrackerHttpOptions = {
    ...http, maxAttempts: 1, userAgent: RECOVERY_PROBE_USER_AGENT,
    timeoutMs: Math.min(http.timeoutMs ?? options.recoveryProbeMs, options.recoveryProbeMs),
  };
  const { client, host } = descriptor.tracker.create(project, http);
  return { platform, client, prober: descriptor.tracker.create(project, probeHttp).client, host, trigger: project.triggers[platform] ?? null };
}
