import type { PollingConfig, ProjectConfig, TriggerConfig } from '../config/service-config.js';
import { triggerKeyOf } from '../platforms/platform.js';
import type { TriggerSet } from '../platforms/tracker-client.js';
import { SERVICE_LABEL_PREFIX } from '../platforms/service-marker.js';
import type { ProjectTracker } from '../tickets/label-projection/project-tracker.factory.js';

/** One project the poller reads: its tracker, trigger block and what can trigger there. */
export interface PollTarget {
  project: ProjectConfig;
  tracker: ProjectTracker;
  trigger: TriggerConfig;
  polling: PollingConfig;
  /** What the poll asks for, and what the tracker's history is asked about. */
  triggers: TriggerSet;
  /** Changes when anything the task depends on changes (a reload then replaces the task). */
  fingerprint: string;
}

/** The project's tracker trigger block, when it has polling switched on. */
export function pollingTrigger(project: ProjectConfig): (TriggerConfig & { polling: PollingConfig }) | null {
  const trigger = project.triggers[project.tracker];
  return trigger?.polling?.enabled ? (trigger as TriggerConfig & { polling: PollingConfig }) : null;
}

/** Trigger statuses and mapped labels (a `service:` label never triggers, so it is never asked for). */
export function triggerSetOf(trigger: TriggerConfig): TriggerSet {
  const own = (label: string) => !label.trim().toLowerCase().startsWith(SERVICE_LABEL_PREFIX);
  return { statuses: trigger.trigger_statuses.filter(own), labels: Object.keys(trigger.pipeline_from_label).filter(own) };
}

/** Where a project's polling problems are reported (findings naming the project and key). */
export function pollingField(project: ProjectConfig): { project: string; trigger: string; field: string } {
  const key = triggerKeyOf(project.tracker);
  return { project: project.name, trigger: key, field: `projects.${project.name}.${key}.polling` };
}

/** Everything a poll task depends on, to tell whether a reload changed it. */
export function fingerprintOf(project: ProjectConfig): string {
  return JSON.stringify({ tracker: project.tracker, trigger: project.triggers[project.tracker] ?? null, repos: project.repos });
}
