import { ALL_PLATFORMS, triggerKeyOf } from '../platforms/platform.js';
import type { ConfigReader, Location } from './config-reader.js';
import { MIN_POLL_INTERVAL_SECONDS, POLLING } from './config-shape.js';
import type { PollingConfig, ProjectConfig } from './service-config.js';

/** Polling defaults: off; once a minute when on. */
export const DEFAULT_POLLING: PollingConfig = { enabled: POLLING.keys.enabled.default, interval_seconds: POLLING.keys.interval_seconds.default };
export { MIN_POLL_INTERVAL_SECONDS };

/**
 * `polling:` of a trigger block; null when absent (webhooks only). An interval that is not an
 * integer of at least 10 seconds is a finding naming the key, and the default applies.
 */
export function readPolling(r: ConfigReader, where: Location, raw: unknown): PollingConfig | null {
  if (raw === undefined || raw === null) return null;
  const b = r.block(raw, where, POLLING);
  return {
    enabled: r.field(POLLING, b, where, 'enabled'),
    interval_seconds: r.field(POLLING, b, where, 'interval_seconds'),
  };
}

/**
 * Advisory: the poller reads only a project's tracker, through that platform's trigger block,
 * so polling switched on in another block does nothing; and a block with neither trigger
 * statuses nor mapped labels gives the poller nothing to ask for.
 */
export function checkPolling(r: ConfigReader, projects: readonly ProjectConfig[]): void {
  for (const project of projects) {
    for (const platform of ALL_PLATFORMS) {
      const trigger = project.triggers[platform];
      if (!trigger?.polling?.enabled) continue;
      const key = triggerKeyOf(platform);
      const where = { project: project.name, trigger: key, path: `projects.${project.name}.${key}.polling.enabled` };
      if (platform !== project.tracker) {
        r.problem(where, `project ${project.name} tracks its tickets on ${project.tracker}: polling is only done through `
          + `${triggerKeyOf(project.tracker)}, so polling in ${key} is ignored`, 'advisory');
      } else if (trigger.trigger_statuses.length === 0 && Object.keys(trigger.pipeline_from_label).length === 0) {
        r.problem(where, `project ${project.name} polls ${key} but it has neither trigger_statuses nor pipeline_from_label: nothing can be polled`, 'advisory');
      }
    }
  }
}
