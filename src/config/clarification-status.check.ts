import { builtInHas } from '../pipelines/built-in-pipelines.js';
import { triggerKeyOf } from '../platforms/platform.js';
import type { ConfigReader } from './config-reader.js';
import type { ProjectConfig, TriggerConfig } from './service-config.js';

/** A pipeline that can hand its ticket back (park it): the one that writes code. */
const parks = (pipeline: string): boolean => builtInHas(pipeline, 'writesCode');

/** A trigger block can start a parking pipeline: as its default pipeline, or through a label. */
function triggerStartsParking(trigger: TriggerConfig | undefined): boolean {
  if (!trigger) return false;
  return (trigger.default_pipeline !== null && parks(trigger.default_pipeline)) || Object.values(trigger.pipeline_from_label).some(parks);
}

/** A project whose tickets can end parked: its tracker's trigger block or its pull-request commands start `code`, and it has an agent. */
export function canPark(project: ProjectConfig): boolean {
  if (project.agent.provider === null) return false;
  const commands = project.pr_commands;
  const byCommand = commands.enabled && (commands.allowed_pipelines === null || commands.allowed_pipelines.some(parks));
  return byCommand || triggerStartsParking(project.triggers[project.tracker]);
}

/**
 * Advisory, per project that can park a ticket: without `needs_clarification_status` a handed-back
 * ticket keeps showing its trigger status on the tracker (only its `service:parked` label and the
 * hand-back comment say it waits for an answer).
 */
export function checkClarificationStatus(r: ConfigReader, projects: readonly ProjectConfig[]): void {
  for (const project of projects) {
    if (!canPark(project) || project.triggers[project.tracker]?.needs_clarification_status) continue;
    const key = triggerKeyOf(project.tracker);
    r.problem({ project: project.name, trigger: key, path: `projects.${project.name}.${key}.needs_clarification_status` },
      `project ${project.name} can hand tickets back for an answer (its code runs may ask) but ${key} has no needs_clarification_status: `
      + 'a parked ticket keeps its trigger status on the tracker; set the status to move it to while it waits', 'advisory');
  }
}
