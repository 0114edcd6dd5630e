import type { ProjectConfig, ServiceConfig } from '../config/service-config.js';
import { DEFAULT_PIPELINE } from '../pipelines/built-in-pipelines.js';
import type { TicketKey } from '../tickets/ticket-key.js';
import { RejectReason, knownPipelines } from '../webhooks/trigger-decision.js';
import type { TicketRef } from './chat-intent.js';

export type ResolvedTicket = { ok: true; key: TicketKey; project: ProjectConfig } | { ok: false; reason: string };

/**
 * A ticket reference → the ticket as a trigger names it (its project's tracker, the project, the
 * id there). `BILL-12` routes by the tracker key a project declares (`project_key`), as a
 * delivery from that tracker would; `shop#42` names the project; `#42` alone needs exactly one project.
 */
export function resolveTicket(config: Pick<ServiceConfig, 'projects'>, ref: TicketRef): ResolvedTicket {
  const projects = Object.values(config.projects);
  if (ref.kind === 'key') {
    const prefix = ref.key.slice(0, ref.key.lastIndexOf('-')).toLowerCase();
    const project = projects.find((p) => p.triggers[p.tracker]?.project_key?.trim().toLowerCase() === prefix);
    if (!project) return { ok: false, reason: `${RejectReason.UnknownProject}: no project declares the tracker key ${prefix.toUpperCase()} (write project#number instead)` };
    return { ok: true, key: { platform: project.tracker, project: project.name, ticket: ref.key }, project };
  }
  if (ref.project === null) {
    if (projects.length !== 1) return { ok: false, reason: `name the project: ${projects.map((p) => `${p.name}#${ref.ticket}`).join(', ') || 'no project is configured'}` };
    const only = projects[0]!;
    return { ok: true, key: { platform: only.tracker, project: only.name, ticket: ref.ticket }, project: only };
  }
  const wanted = ref.project.toLowerCase();
  const project = projects.find((p) => p.name.toLowerCase() === wanted);
  if (!project) return { ok: false, reason: `${RejectReason.UnknownProject}: no project is named ${ref.project}` };
  return { ok: true, key: { platform: project.tracker, project: project.name, ticket: ref.ticket }, project };
}

/** The pipeline a start names, or the project's default (`code` without one); null when unknown. */
export function pipelineToStart(config: Pick<ServiceConfig, 'pipelines'>, project: ProjectConfig, named: string | null): { ok: true; pipeline: string } | { ok: false; reason: string } {
  const pipeline = named ?? project.triggers[project.tracker]?.default_pipeline ?? DEFAULT_PIPELINE;
  const known = knownPipelines(config);
  return known.has(pipeline) ? { ok: true, pipeline } : { ok: false, reason: `${RejectReason.UnknownPipeline}: ${pipeline} is none of ${[...known].sort().join(', ')}` };
}

export function describeKey(key: TicketKey): string {
  return `${key.project}/${key.ticket}`;
}
