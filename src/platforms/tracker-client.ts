import type { TriggerConfig } from '../config/service-config.js';
import type { Platform } from './platform.js';
import { LIFECYCLE_LABELS, SERVICE_LABEL_PREFIX } from './service-marker.js';
import type { CreatedTicket, NewTicket } from './ticket-creation.js';

/**
 * What the lifecycle state machine needs from a ticket tracker, implemented once per platform
 * (GitHub, GitLab, Azure DevOps, Jira) by a thin `fetch` client. No NestJS here: the tickets
 * module wires these in.
 *
 * Status on label-only trackers (A = GitHub, B = GitLab): a "status" is a label. A client of
 * those platforms is built with the project's status labels (`trigger_statuses`, `done_status`,
 * `needs_clarification_status`); `readTicket().status` is the first of them present on the
 * ticket, and `setStatus(s)` adds label `s` and removes the other configured status labels, so
 * that a ticket carries one status at a time like on C and D. Labels outside that set and
 * outside `service:` are never touched.
 */


export interface TicketSnapshot {
  /** Platform ticket id: GitHub issue number, GitLab iid, ADO work item id, Jira key. */
  ticket: string;
  status: string | null;
  labels: string[];
  /** The ticket's title (Jira: summary); publishing uses it for the commit message and PR title. */
  title: string | null;
  /**
   * The ticket's body as the tracker stores it, untouched (no sanitising: that happens where the
   * text meets the model): GitHub issue `body` and GitLab issue `description` (Markdown), Azure
   * DevOps `System.Description` (HTML; a Bug without one falls back to its
   * `Microsoft.VSTS.TCM.ReproSteps`), Jira `fields.description` (REST v2: wiki markup text; an
   * Atlassian Document Format document, as v3 answers, is converted to plain text). `null` when
   * the ticket has none. `listTickets` results carry it too: every tracker returns it in the
   * same list response at no extra request.
   */
  description: string | null;
  /** The ticket's web page (not its API URL), linked from pull request bodies. */
  url: string | null;
  /**
   * The token a conditional write must carry: GitHub `ETag`, Azure DevOps `rev`. `null` on
   * GitLab and Jira (no conditional update exists there) and in `listTickets` results of
   * GitHub (a list carries no per-issue entity tag: re-read before a conditional write).
   */
  concurrencyToken: string | null;
}

export type LabelReplaceResult = { outcome: 'Updated' } | { outcome: 'PreconditionFailed' };

export interface TicketComment {
  id: string;
  body: string;
  /** Login / username / unique name / account id of the author; null when the tracker hides it. */
  author: string | null;
}

export interface ListTicketsQuery {
  /** Ticket's status is any of these (OR). On A/B: carries any of these labels. */
  statuses?: readonly string[];
  /** Ticket carries all of these labels (AND). */
  labels?: readonly string[];
}

/**
 * What the poller asks a tracker for (issue 17, polling ingress): open tickets that can trigger —
 * whose status is any of `statuses` (A/B: that carry any of these labels) **or** that carry any
 * of `labels` (C: tags) — updated at or after `updatedSince` (null: all of them, a full sweep),
 * paged to the end, in the project's scope.
 */
export interface PollQuery {
  statuses: readonly string[];
  labels: readonly string[];
  updatedSince: Date | null;
}

/** A polled ticket: the snapshot and when the tracker last changed it (ISO 8601). */
export interface PolledTicket extends TicketSnapshot {
  updatedAt: string;
}

/** The triggers a ticket can carry: the trigger statuses and the labels `pipeline_from_label` maps. */
export interface TriggerSet {
  statuses: readonly string[];
  labels: readonly string[];
}

export interface TrackerClient {
  readonly platform: Platform;
  readTicket(ticket: string): Promise<TicketSnapshot>;
  /**
   * Replace the ticket's lifecycle label by `next` (`null` removes every `service:` label).
   * Conditional on `read` where the platform can (A: If-Match ETag, C: JSON Patch `test /rev`);
   * a changed ticket gives `PreconditionFailed`. GitLab and Jira always answer `Updated` (the
   * caller's claim lock / 10 s label lock is the guard there). Never changes other labels.
   */
  replaceLifecycleLabel(ticket: string, next: string | null, read: TicketSnapshot): Promise<LabelReplaceResult>;
  setStatus(ticket: string, status: string): Promise<void>;
  /** Returns the created comment's id. */
  postComment(ticket: string, body: string): Promise<string>;
  /**
   * Every comment, oldest first, paged to the end (GitHub `Link: rel="next"`, GitLab
   * `X-Next-Page`, Azure DevOps `continuationToken`, Jira `startAt`/`total`). System notes (GitLab
   * `system: true`) and deleted comments (Azure DevOps) are excluded; our own comments are not.
   */
  listComments(ticket: string): Promise<TicketComment[]>;
  /** Open tickets matching the query (project-scoped where the platform needs a scope). */
  listTickets(query?: ListTicketsQuery): Promise<TicketSnapshot[]>;
  /** The poller's read (see PollQuery): at most a few requests when little changed since `updatedSince`. */
  pollTickets?(query: PollQuery): Promise<PolledTicket[]>;
  /**
   * When the ticket last moved into one of `trigger.statuses` or was given one of
   * `trigger.labels`, from the tracker's own history (GitHub issue events, GitLab resource label
   * events, Azure DevOps work item updates, Jira changelog); null when it never did (as far as
   * the history says). The poller asks it only for a ended ticket that shows a trigger again.
   */
  triggeredAt?(ticket: string, trigger: TriggerSet): Promise<Date | null>;
  /**
   * Files a new ticket (the design dialogue) with its acceptance criteria where the contract
   * reads them: a Markdown task list under "Acceptance criteria" in the description, or Azure
   * DevOps's `Microsoft.VSTS.Common.AcceptanceCriteria`. Not retried on an ambiguous failure.
   */
  createTicket?(ticket: NewTicket): Promise<CreatedTicket>;
}

/** A failed tracker call. The message never carries credentials (redacted by the HTTP layer). */
export class TrackerError extends Error {
  override readonly name = 'TrackerError';
  constructor(
    message: string,
    readonly platform: Platform,
    /** HTTP status, or null for a network failure, a timeout or a local precondition. */
    readonly status: number | null,
    /** Worth trying again later (rate limit, tracker down, timeout). */
    readonly retryable: boolean,
    /** Server-mandated wait when it exceeded the client's cap, so the caller can reschedule. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }
}

export function isLifecycleLabel(label: string): boolean {
  return label.startsWith(SERVICE_LABEL_PREFIX);
}

/** Guards against ever writing a foreign label through the lifecycle path. */
export function assertLifecycleLabel(platform: Platform, next: string | null): void {
  if (next !== null && (!isLifecycleLabel(next) || next.length === SERVICE_LABEL_PREFIX.length)) {
    throw new TrackerError(`not a lifecycle label: ${JSON.stringify(next)}`, platform, null, false);
  }
}

/** Full label set after the transition: foreign labels kept in order, one lifecycle label last. */
export function withLifecycleLabel(labels: readonly string[], next: string | null): string[] {
  const kept = labels.filter((label) => !isLifecycleLabel(label));
  return next === null ? kept : [...kept, next];
}

/** Lifecycle labels to remove on add/remove trackers: those read plus every known one, minus next. */
export function lifecycleLabelsToRemove(read: readonly string[], next: string | null): string[] {
  const all = new Set([...read.filter(isLifecycleLabel), ...LIFECYCLE_LABELS]);
  if (next !== null) all.delete(next);
  return [...all];
}

/** The labels that act as statuses on label-only trackers (A, B), from a project's trigger block. */
export function statusLabelsOf(trigger: TriggerConfig | null | undefined): string[] {
  if (!trigger) return [];
  const all = [...trigger.trigger_statuses, trigger.done_status, trigger.needs_clarification_status];
  return [...new Set(all.filter((s): s is string => typeof s === 'string' && s.length > 0))];
}

/** First configured status label present on the ticket (case-insensitive), in the configured spelling. */
export function statusFromLabels(labels: readonly string[], statusLabels: readonly string[]): string | null {
  const present = new Set(labels.map((l) => l.toLowerCase()));
  return statusLabels.find((s) => present.has(s.toLowerCase())) ?? null;
}

export function sameName(a: string, b: string): boolean {
  return a.localeCompare(b, undefined, { sensitivity: 'accent' }) === 0;
}
