import type { IncomingHttpHeaders } from 'node:http';
import {
  type Actor,
  type EventRoute,
  type InboundEvent,
  type PullRequestCommentEvent,
  type PullRequestRef,
  ignored,
  ticketEvent,
} from '../inbound-event.js';
import { Platform } from '../platform.js';
import { type JsonRecord, asRecord, at, idString, list, positiveInt, str, text, unique } from '../payload-reader.js';
import { githubDeliveryId } from './github-delivery.js';

/**
 * Platform A (GitHub) payload → event (contract, "From real payloads to the specification's terms"):
 *
 * | Event header | Action | Result |
 * |---|---|---|
 * | `issues` | `labeled` on an issue | ticket `labels-added` [`label.name`] |
 * | `issue_comment` | `created` on an issue | ticket `comment` |
 * | `issue_comment` | `created` on a pull request | `pr-comment` (head branch unknown) |
 * | `pull_request_review_comment` | `created` | `pr-comment` |
 * | `pull_request` | `labeled` | `pr-labeled` |
 * | `pull_request_review` | `submitted` | `pr-review` |
 *
 * An `issues` event whose issue is a pull request (it carries `issue.pull_request`) is not a ticket.
 * Everything else, and any malformed body, is `ignored`; this function never throws.
 */
export function parseGitHubPayload(
  eventName: string | null,
  body: unknown,
  headers: IncomingHttpHeaders,
): InboundEvent {
  if (eventName === null) return ignored('no GitHub event header');
  const payload = asRecord(body);
  if (payload === null) return ignored('body is not a JSON object');
  const envelope = {
    platform: Platform.GitHub,
    eventName,
    deliveryId: githubDeliveryId(headers),
    route: routeOf(payload),
  };
  const action = str(payload['action']);

  switch (eventName) {
    case 'issues':
      return issueLabeled(envelope, payload, action);
    case 'issue_comment':
      return issueComment(envelope, payload, action);
    case 'pull_request_review_comment':
      return reviewComment(envelope, payload, action);
    case 'pull_request':
      return pullRequestLabeled(envelope, payload, action);
    case 'pull_request_review':
      return reviewSubmitted(envelope, payload, action);
    default:
      return ignored(`GitHub event '${eventName}' is not used`);
  }
}

type Envelope = { platform: typeof Platform.GitHub; eventName: string; deliveryId: string | null; route: EventRoute };

function issueLabeled(envelope: Envelope, payload: JsonRecord, action: string | null): InboundEvent {
  if (action !== 'labeled') return ignored(`issues action '${action ?? 'none'}' is not labeled`);
  const issue = asRecord(payload['issue']);
  if (issue === null) return ignored('issues event without an issue');
  if (isPullRequest(issue)) return ignored('issues event on a pull request is not a ticket');
  const ticket = positiveInt(issue['number']);
  if (ticket === null) return ignored('issue without a number');
  const label = text(at(payload, 'label', 'name'));
  if (label === null) return ignored('labeled event without a label name');
  return ticketEvent({ ...envelope, ticket: String(ticket) }, [{ type: 'labels-added', labels: [label] }]);
}

function issueComment(envelope: Envelope, payload: JsonRecord, action: string | null): InboundEvent {
  if (action !== 'created') return ignored(`issue_comment action '${action ?? 'none'}' is not created`);
  const issue = asRecord(payload['issue']);
  const comment = asRecord(payload['comment']);
  if (issue === null || comment === null) return ignored('issue_comment without issue or comment');
  const number = positiveInt(issue['number']);
  if (number === null) return ignored('issue without a number');
  const body = str(comment['body']);
  if (body === null) return ignored('comment without a text body');

  if (isPullRequest(issue)) {
    // The issue view of a pull request carries neither the head branch nor the head repository.
    const pullRequest: PullRequestRef = { number, headBranch: null, sameRepository: null, author: actorOf(issue['user']) };
    return { kind: 'pr-comment', ...envelope, pullRequest, comment: commentOf(comment, body) };
  }
  const author = actorOf(comment['user'])?.login ?? '';
  return ticketEvent({ ...envelope, ticket: String(number) }, [{ type: 'comment', body, author }]);
}

function reviewComment(envelope: Envelope, payload: JsonRecord, action: string | null): InboundEvent {
  if (action !== 'created') return ignored(`pull_request_review_comment action '${action ?? 'none'}' is not created`);
  const pullRequest = pullRequestOf(payload['pull_request']);
  const comment = asRecord(payload['comment']);
  const body = str(comment?.['body']);
  if (pullRequest === null || comment === null || body === null) return ignored('review comment without pull request or text');
  return { kind: 'pr-comment', ...envelope, pullRequest, comment: commentOf(comment, body) };
}

function pullRequestLabeled(envelope: Envelope, payload: JsonRecord, action: string | null): InboundEvent {
  if (action !== 'labeled') return ignored(`pull_request action '${action ?? 'none'}' is not labeled`);
  const pullRequest = pullRequestOf(payload['pull_request']);
  if (pullRequest === null) return ignored('pull_request event without a pull request');
  const label = text(at(payload, 'label', 'name'));
  if (label === null) return ignored('labeled event without a label name');
  const currentLabels = unique([...labelNames(at(payload, 'pull_request', 'labels')), label]);
  return { kind: 'pr-labeled', ...envelope, pullRequest, addedLabels: [label], currentLabels, action };
}

function reviewSubmitted(envelope: Envelope, payload: JsonRecord, action: string | null): InboundEvent {
  if (action !== 'submitted') return ignored(`pull_request_review action '${action ?? 'none'}' is not submitted`);
  const pullRequest = pullRequestOf(payload['pull_request']);
  const review = asRecord(payload['review']);
  if (pullRequest === null || review === null) return ignored('review event without pull request or review');
  const state = text(review['state']);
  const reviewer = actorOf(review['user']);
  if (state === null || reviewer === null) return ignored('review without state or reviewer');
  return {
    kind: 'pr-review',
    ...envelope,
    pullRequest,
    review: {
      id: idString(review['id']),
      state: state.toLowerCase(),
      body: str(review['body']),
      reviewer,
      authorAssociation: text(review['author_association']),
    },
  };
}

function routeOf(payload: JsonRecord): EventRoute {
  const url = text(at(payload, 'repository', 'html_url'));
  return url === null ? {} : { repositoryUrl: url };
}

/**
 * GitHub marks the issue view of a pull request with a `pull_request` object; any non-null value
 * there is taken as that mark, so a malformed one can never turn a pull request into a ticket.
 */
function isPullRequest(issue: JsonRecord): boolean {
  const mark = issue['pull_request'];
  return mark !== undefined && mark !== null;
}

function pullRequestOf(value: unknown): PullRequestRef | null {
  const pr = asRecord(value);
  if (pr === null) return null;
  const number = positiveInt(pr['number']);
  if (number === null) return null;
  return {
    number,
    headBranch: text(at(pr, 'head', 'ref')),
    sameRepository: sameRepository(pr),
    author: actorOf(pr['user']),
  };
}

/** Head and base repository are the same one (a deleted fork has `head.repo: null` → false). */
function sameRepository(pr: JsonRecord): boolean | null {
  const base = asRecord(at(pr, 'base', 'repo'));
  if (base === null) return null;
  const head = asRecord(at(pr, 'head', 'repo'));
  if (head === null) return false;
  const headId = idString(head['id']);
  const baseId = idString(base['id']);
  if (headId !== null && baseId !== null) return headId === baseId;
  const headName = text(head['full_name']);
  const baseName = text(base['full_name']);
  if (headName !== null && baseName !== null) return headName.toLowerCase() === baseName.toLowerCase();
  return null;
}

function commentOf(comment: JsonRecord, body: string): PullRequestCommentEvent['comment'] {
  return {
    id: idString(comment['id']),
    body,
    author: actorOf(comment['user']) ?? { login: null, id: null, displayName: null },
    authorAssociation: text(comment['author_association']),
    system: false,
  };
}

function actorOf(value: unknown): Actor | null {
  const user = asRecord(value);
  if (user === null) return null;
  return { login: text(user['login']), id: idString(user['id']), displayName: text(user['name']) };
}

function labelNames(value: unknown): string[] {
  return list(value)
    .map((label) => text(asRecord(label)?.['name']))
    .filter((name): name is string => name !== null);
}
