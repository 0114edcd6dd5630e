import type { Platform } from './platform.js';

/**
 * The one event model every platform's payload parser produces (no I/O, no framework).
 *
 * - `ticket`: something happened to a tracker ticket (issue, work item, Jira issue) that the
 *   trigger rules may act on (status change, labels added, comment).
 * - `pr-comment`, `pr-review`, `pr-labeled`, `pr-review-vote`: pull-request (merge-request)
 *   activity for the pull-request command / rework / label-trigger flows.
 * - `ignored`: a well-formed or malformed delivery that matters to nothing; `reason` says why.
 *
 * Parsers never throw: any JSON value (null, arrays, wrong types) maps to `ignored`.
 */
export type InboundEvent = TicketEvent | PullRequestEvent | IgnoredEvent;

/** Every event except `ignored`: the part that routing (project resolution) reads. */
export type RoutableEvent = TicketEvent | PullRequestEvent;

/**
 * Where an event routes to (contract, "Platforms"): platforms A/B by the repository's web URL,
 * C by the work item's team project (`System.TeamProject`), D by the Jira project key.
 * Only the fields a platform can carry are set.
 */
export interface EventRoute {
  /** Web URL of the repository (GitHub `repository.html_url`, GitLab `project.web_url`, ADO `repository.remoteUrl`). */
  repositoryUrl?: string;
  /** Azure DevOps team project name. */
  teamProject?: string;
  /** Jira project key (`BILL`). */
  projectKey?: string;
}

/** What changed on a ticket. */
export type TicketChange =
  /** The ticket moved to `status` (Azure DevOps `System.State`, Jira status name). */
  | { type: 'status'; status: string }
  /** Labels (ADO tags) newly present on the ticket, in the order the payload lists them. */
  | { type: 'labels-added'; labels: string[] }
  /** A new comment; `author` is the platform's display handle of the writer. */
  | { type: 'comment'; body: string; author: string };

interface EventEnvelope {
  platform: Platform;
  /** Normalised event name: GitHub/GitLab event header, ADO `eventType`, Jira `webhookEvent` without `jira:`. */
  eventName: string;
  /** The platform's delivery id when it sends one (for logs and de-duplication), else null. */
  deliveryId: string | null;
  route: EventRoute;
}

export interface TicketEvent extends EventEnvelope {
  kind: 'ticket';
  /** Ticket id as the contract's table gives it: issue number "42", iid "23", work item "5", key "BILL-12". */
  ticket: string;
  /**
   * The most specific change: labels added beat a status change (a label names its pipeline),
   * which beats a comment. Always `changes[0]`.
   */
  change: TicketChange;
  /**
   * Every change the delivery carries, `change` first. One delivery can carry several (an Azure
   * DevOps save that moves the state and adds a tag, a Jira edit of status and labels).
   */
  changes: TicketChange[];
}

/** An account on a code host. Fields the payload does not carry are null. */
export interface Actor {
  /** Handle: GitHub login, GitLab username, Azure DevOps uniqueName. */
  login: string | null;
  /** Stable id as a string (GitHub/GitLab numeric id, Azure DevOps identity GUID). */
  id: string | null;
  /** Human name where the platform sends one (GitLab `name`, ADO `displayName`). */
  displayName: string | null;
}

export interface PullRequestRef {
  /** GitHub PR number, GitLab MR iid, Azure DevOps pullRequestId. */
  number: number;
  /** Source (head) branch without `refs/heads/`; null when the payload does not carry it (GitHub `issue_comment`). */
  headBranch: string | null;
  /**
   * True when the head branch lives in the base repository, false for a fork, null when the
   * payload cannot tell (GitHub `issue_comment` carries no head repository).
   */
  sameRepository: boolean | null;
  /** The pull request's own author (never counts as a reviewer). */
  author: Actor | null;
}

interface PullRequestEnvelope extends EventEnvelope {
  pullRequest: PullRequestRef;
}

/** A new comment on a pull request (GitHub issue/review comment, GitLab MR note). */
export interface PullRequestCommentEvent extends PullRequestEnvelope {
  kind: 'pr-comment';
  comment: {
    id: string | null;
    body: string;
    author: Actor;
    /** GitHub `author_association` (OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, …); null elsewhere. */
    authorAssociation: string | null;
    /** GitLab system note (for example the host's own "requested changes" note); false elsewhere. */
    system: boolean;
  };
}

/** A submitted pull-request review (GitHub `pull_request_review` submitted). */
export interface PullRequestReviewEvent extends PullRequestEnvelope {
  kind: 'pr-review';
  review: {
    id: string | null;
    /** Lower-cased review state: `approved`, `changes_requested`, `commented`, … */
    state: string;
    body: string | null;
    reviewer: Actor;
    authorAssociation: string | null;
  };
}

/**
 * Labels on a pull request: GitHub `pull_request` labeled (one label added), GitLab
 * `Merge Request Hook` (any update of a merge request that carries labels).
 */
export interface PullRequestLabeledEvent extends PullRequestEnvelope {
  kind: 'pr-labeled';
  /** Labels this delivery reports as newly added (may be empty for a GitLab update). */
  addedLabels: string[];
  /** All labels the pull request carries after the change, as far as the payload says. */
  currentLabels: string[];
  /** Platform action (`labeled`, GitLab `open`/`update`/…), or null. */
  action: string | null;
}

/** Azure DevOps vote values, as sent in `reviewers[].vote`. */
export const AzureDevOpsVote = {
  Approved: 10,
  ApprovedWithSuggestions: 5,
  NoVote: 0,
  WaitingForAuthor: -5,
  Rejected: -10,
} as const;

export interface ReviewerVote {
  reviewer: Actor;
  /** 10 approved, 5 approved with suggestions, 0 none, -5 waiting for author, -10 rejected. */
  vote: number;
  /** A group (team) reviewer rather than a person. */
  isContainer: boolean;
}

/**
 * Azure DevOps `git.pullrequest.updated` delivered by a review-vote subscription
 * (`X-Service-Change: review-vote`). The payload does not say which reviewer changed the vote;
 * it lists every reviewer with the current vote, so consumers compare with what they saw before
 * (or read the pull request's threads) to find the voter.
 */
export interface PullRequestReviewVoteEvent extends PullRequestEnvelope {
  kind: 'pr-review-vote';
  reviewers: ReviewerVote[];
  /** The service hook's human summary (`message.text`), for logs. */
  summary: string | null;
}

export type PullRequestEvent =
  | PullRequestCommentEvent
  | PullRequestReviewEvent
  | PullRequestLabeledEvent
  | PullRequestReviewVoteEvent;

export interface IgnoredEvent {
  kind: 'ignored';
  reason: string;
}

export function ignored(reason: string): IgnoredEvent {
  return { kind: 'ignored', reason };
}

/** Builds a ticket event from a non-empty list of changes, ordering them most specific first. */
export function ticketEvent(
  envelope: EventEnvelope & { ticket: string },
  changes: readonly TicketChange[],
): TicketEvent | IgnoredEvent {
  const ordered = [...changes].sort((a, b) => CHANGE_RANK[a.type] - CHANGE_RANK[b.type]);
  const first = ordered[0];
  if (first === undefined) return ignored('no change that could trigger anything');
  return { kind: 'ticket', ...envelope, change: first, changes: ordered };
}

const CHANGE_RANK: Record<TicketChange['type'], number> = { 'labels-added': 0, status: 1, comment: 2 };
