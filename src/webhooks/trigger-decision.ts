import { BUILT_IN_PIPELINES } from '../pipelines/built-in-pipelines.js';
import type { ProjectConfig, ServiceConfig, TriggerConfig } from '../config/service-config.js';
import type { TicketChange, TicketEvent } from '../platforms/inbound-event.js';
import type { Platform } from '../platforms/platform.js';
import { traitsOf } from '../platforms/platform-traits.registry.js';
import { SERVICE_LABEL_PREFIX, carriesServiceMarker } from '../platforms/service-marker.js';

/** Claim-result rejection reasons (spec, "Claim result"). */
export const RejectReason = {
  UnknownProject: 'UnknownProject',
  UnknownPipeline: 'UnknownPipeline',
  PipelineNotLabelTriggered: 'PipelineNotLabelTriggered',
} as const;
export type RejectReason = (typeof RejectReason)[keyof typeof RejectReason];

export type TriggerDecision =
  /** The event matters to nothing: answer 200 and stop (spec step 3). */
  | { verdict: 'filtered'; reason: string }
  /** Answer 200 `Rejected: <reason>` without claiming. */
  | { verdict: 'rejected'; reason: RejectReason }
  /** Claim the ticket and queue `pipeline`. */
  | { verdict: 'claim'; pipeline: string };


/**
 * The spec's processing step 3 plus the claim's pre-checks, without I/O. Rules (contract):
 *
 * 1. The service's own writes never trigger: a label starting with `service:` (any case) and a
 *    comment carrying the service marker are dropped first.
 * 2. No project → rejected `UnknownProject`. A project without a trigger block for the event's
 *    platform → filtered.
 * 3. Labels added: a label named in `pipeline_from_label` → its pipeline. On the label-only
 *    trackers (A, B) a "status" is a label, so a label named in `trigger_statuses` →
 *    `default_pipeline`.
 * 4. Status: one of `trigger_statuses` → `default_pipeline`.
 * 5. Comment containing `comment_keyword` → `default_pipeline`, or, when the first word after
 *    the keyword names a pipeline, that pipeline if it is the default or a `pipeline_from_label`
 *    target, else rejected `PipelineNotLabelTriggered`.
 * 6. A resolved name that is not a known pipeline (built-in `code`, `security-scan`,
 *    `pr-review`, or a key of `pipelines:`) → rejected `UnknownPipeline`; an unset
 *    `default_pipeline` counts as unknown.
 *
 * Changes are tried most specific first (labels, status, comment; see `TicketEvent.changes`).
 * Matching: labels and statuses compare trimmed and case-insensitively (trackers treat labels
 * that way, and a status typed "ready for agent" in configuration should match Jira's
 * "Ready for Agent"); the comment keyword is found case-insensitively; pipeline names in a
 * comment compare case-insensitively and resolve to the configured spelling.
 */
export function decideTrigger(
  event: TicketEvent,
  project: ProjectConfig | null,
  config: Pick<ServiceConfig, 'pipelines'>,
): TriggerDecision {
  return decideChanges(event.platform, event.changes.length > 0 ? event.changes : [event.change], project, config);
}

/** What a poll reads of a ticket: what it carries now, not what changed. */
export interface PolledTicketState {
  status: string | null;
  labels: readonly string[];
}

/**
 * The same rules for a polled ticket (polling ingress): its labels are judged as if just added
 * and its status as if just set, most specific first as for a delivery — a mapped label → its
 * pipeline, a trigger status (A/B: a status label) → `default_pipeline`, `service:` labels never,
 * an unknown pipeline rejected. Whether the ticket may be claimed again is the poller's re-run rule.
 */
export function decideTicketState(
  platform: Platform,
  ticket: PolledTicketState,
  project: ProjectConfig | null,
  config: Pick<ServiceConfig, 'pipelines'>,
): TriggerDecision {
  const changes: TicketChange[] = [];
  if (ticket.labels.length > 0) changes.push({ type: 'labels-added', labels: [...ticket.labels] });
  if (ticket.status !== null) changes.push({ type: 'status', status: ticket.status });
  if (changes.length === 0) return filtered('the ticket carries neither a label nor a status');
  return decideChanges(platform, changes, project, config);
}

/** The rules over a list of changes, most specific first (shared by deliveries and polls). */
function decideChanges(
  platform: Platform,
  all: readonly TicketChange[],
  project: ProjectConfig | null,
  config: Pick<ServiceConfig, 'pipelines'>,
): TriggerDecision {
  const changes = all.map(withoutOwnWrites).filter((change): change is TicketChange => change !== null);
  if (changes.length === 0) return filtered(ownWriteReason(all[0] as TicketChange));
  if (project === null) return { verdict: 'rejected', reason: RejectReason.UnknownProject };
  const trigger = project.triggers[platform];
  if (trigger === undefined) return filtered(`project '${project.name}' has no ${platform} trigger`);

  const known = knownPipelines(config);
  for (const change of changes) {
    const decision = decideChange(change, trigger, platform, known);
    if (decision !== null) return decision;
  }
  return filtered(noMatchReason(changes[0] as TicketChange));
}

/** Built-in pipelines plus the operator's command pipelines. */
export function knownPipelines(config: Pick<ServiceConfig, 'pipelines'>): ReadonlySet<string> {
  return new Set([...BUILT_IN_PIPELINES, ...Object.keys(config.pipelines)]);
}

function decideChange(
  change: TicketChange,
  trigger: TriggerConfig,
  platform: Platform,
  known: ReadonlySet<string>,
): TriggerDecision | null {
  switch (change.type) {
    case 'labels-added': {
      for (const label of change.labels) {
        const mapped = lookupIgnoringCase(trigger.pipeline_from_label, label);
        if (mapped !== null) return resolved(mapped, known);
      }
      if (traitsOf(platform).statusesAreLabels && change.labels.some((label) => isTriggerStatus(trigger, label))) {
        return resolved(trigger.default_pipeline, known);
      }
      return null;
    }
    case 'status':
      return isTriggerStatus(trigger, change.status) ? resolved(trigger.default_pipeline, known) : null;
    case 'comment':
      return decideComment(change.body, trigger, known);
  }
}

function decideComment(body: string, trigger: TriggerConfig, known: ReadonlySet<string>): TriggerDecision | null {
  const keyword = trigger.comment_keyword?.trim();
  if (keyword === undefined || keyword === '') return null;
  const at = body.toLowerCase().indexOf(keyword.toLowerCase());
  if (at < 0) return null;
  const named = firstWord(body.slice(at + keyword.length));
  const allowed = new Map<string, string>();
  for (const pipeline of [trigger.default_pipeline, ...Object.values(trigger.pipeline_from_label)]) {
    if (pipeline !== null) allowed.set(pipeline.toLowerCase(), pipeline);
  }
  if (named !== null) {
    const allowedName = allowed.get(named.toLowerCase());
    if (allowedName !== undefined) return resolved(allowedName, known);
    if (namesPipeline(named, known)) return { verdict: 'rejected', reason: RejectReason.PipelineNotLabelTriggered };
  }
  return resolved(trigger.default_pipeline, known);
}

function resolved(pipeline: string | null, known: ReadonlySet<string>): TriggerDecision {
  return pipeline !== null && known.has(pipeline)
    ? { verdict: 'claim', pipeline }
    : { verdict: 'rejected', reason: RejectReason.UnknownPipeline };
}

function isTriggerStatus(trigger: TriggerConfig, value: string): boolean {
  const wanted = fold(value);
  return trigger.trigger_statuses.some((status) => fold(status) === wanted);
}

function lookupIgnoringCase(map: Readonly<Record<string, string>>, key: string): string | null {
  const wanted = fold(key);
  for (const [label, pipeline] of Object.entries(map)) {
    if (fold(label) === wanted) return pipeline;
  }
  return null;
}

function namesPipeline(word: string, known: ReadonlySet<string>): boolean {
  const wanted = word.toLowerCase();
  return [...known].some((pipeline) => pipeline.toLowerCase() === wanted);
}

/** The first word after the keyword: letters, digits, `-`, `_`, `.` (pipeline-name characters). */
function firstWord(text: string): string | null {
  return /^[\s:,]*([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(text)?.[1] ?? null;
}

function fold(value: string): string {
  return value.trim().toLowerCase();
}

function withoutOwnWrites(change: TicketChange): TicketChange | null {
  switch (change.type) {
    case 'labels-added': {
      const labels = change.labels.filter((label) => !fold(label).startsWith(SERVICE_LABEL_PREFIX));
      return labels.length === 0 ? null : { type: 'labels-added', labels };
    }
    case 'comment':
      return carriesServiceMarker(change.body) ? null : change;
    case 'status':
      return change;
  }
}

function ownWriteReason(change: TicketChange): string {
  return change.type === 'comment'
    ? 'comment carries the service marker (the service wrote it)'
    : `only service-owned '${SERVICE_LABEL_PREFIX}' labels were added`;
}

function noMatchReason(change: TicketChange): string {
  switch (change.type) {
    case 'labels-added':
      return `no added label (${change.labels.join(', ')}) triggers a pipeline`;
    case 'status':
      return `status '${change.status}' is not a trigger status`;
    case 'comment':
      return 'comment does not contain the comment keyword';
  }
}

function filtered(reason: string): TriggerDecision {
  return { verdict: 'filtered', reason };
}
