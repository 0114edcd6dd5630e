import type { IncomingHttpHeaders } from 'node:http';
import { type Actor, type EventRoute, type InboundEvent, type PullRequestRef, ignored, ticketEvent } from '../inbound-event.js';
import { Platform } from '../platform.js';
import {
  type JsonRecord,
  added,
  asRecord,
  at,
  idString,
  isTrue,
  list,
  positiveInt,
  str,
  text,
  unique,
} from '../payload-reader.js';
import { gitlabDeliveryId } from './gitlab-delivery.js';

/**
 * Platform B (GitLab) payload → event (contract, "From real payloads to the specification's terms"):
 *
 * | Event header | Condition | Result |
 * |---|---|---|
 * | `Issue Hook` (also `Confidential Issue Hook`) | labels in `changes.labels.current` not in `previous` | ticket `labels-added`, ticket = `object_attributes.iid` |
 * | `Note Hook` (also `Confidential Note Hook`) | `noteable_type: Issue`, new note | ticket `comment` (`object_attributes.note`) |
 * | `Note Hook` | `noteable_type: MergeRequest`, new note | `pr-comment` (system notes flagged) |
 * | `Merge Request Hook` | any update (labels for the label trigger; a reviewer's request for changes on a service merge request) | `pr-labeled` |
 *
 * Edited notes (`action: update`) start nothing. Everything else, and any malformed body, is
 * `ignored`; this function never throws.
 */
export function parseGitLabPayload(
  eventName: string | null,
  body: unknown,
  headers: IncomingHttpHeaders,
): InboundEvent {
  if (eventName === null) return ignored('no GitLab event header');
  const payload = asRecord(body);
  if (payload === null) return ignored('body is not a JSON object');
  const envelope: Envelope = {
    platform: Platform.GitLab,
    eventName,
    deliveryId: gitlabDeliveryId(headers),
    route: routeOf(payload),
  };
  switch (eventName) {
    case 'Issue Hook':
    case 'Confidential Issue Hook':
      return issueLabelsAdded(envelope, payload);
    case 'Note Hook':
    case 'Confidential Note Hook':
      return note(envelope, payload);
    case 'Merge Request Hook':
      return mergeRequestLabels(envelope, payload);
    default:
      return ignored(`GitLab event '${eventName}' is not used`);
  }
}

type Envelope = { platform: typeof Platform.GitLab; eventName: string; deliveryId: string | null; route: EventRoute };

function issueLabelsAdded(envelope: Envelope, payload: JsonRecord): InboundEvent {
  const kind = str(payload['object_kind']);
  if (kind !== null && kind !== 'issue') return ignored(`Issue Hook for a '${kind}' is not a ticket`);
  const iid = positiveInt(at(payload, 'object_attributes', 'iid'));
  if (iid === null) return ignored('issue without an iid');
  const labels = added(
    labelTitles(at(payload, 'changes', 'labels', 'current')),
    labelTitles(at(payload, 'changes', 'labels', 'previous')),
  );
  if (labels.length === 0) return ignored('no label was added');
  return ticketEvent({ ...envelope, ticket: String(iid) }, [{ type: 'labels-added', labels }]);
}

function note(envelope: Envelope, payload: JsonRecord): InboundEvent {
  const attributes = asRecord(payload['object_attributes']);
  if (attributes === null) return ignored('note without object_attributes');
  // `action` exists since GitLab 16.11; older deliveries only ever announce new notes.
  const action = str(attributes['action']);
  if (action !== null && action !== 'create') return ignored(`note action '${action}' is not create`);
  const body = str(attributes['note']);
  if (body === null) return ignored('note without text');
  const noteableType = str(attributes['noteable_type']);

  if (noteableType === 'Issue') {
    const iid = positiveInt(at(payload, 'issue', 'iid'));
    if (iid === null) return ignored('issue note without issue.iid');
    const author = actorOf(payload['user'])?.login ?? '';
    return ticketEvent({ ...envelope, ticket: String(iid) }, [{ type: 'comment', body, author }]);
  }
  if (noteableType === 'MergeRequest') {
    const pullRequest = pullRequestOf(payload['merge_request']);
    if (pullRequest === null) return ignored('merge request note without merge_request.iid');
    return {
      kind: 'pr-comment',
      ...envelope,
      pullRequest,
      comment: {
        id: idString(attributes['id']),
        body,
        author: actorOf(payload['user']) ?? { login: null, id: idString(attributes['author_id']), displayName: null },
        authorAssociation: null,
        system: isTrue(attributes['system']),
      },
    };
  }
  return ignored(`note on a '${noteableType ?? 'unknown'}' is not used`);
}

function mergeRequestLabels(envelope: Envelope, payload: JsonRecord): InboundEvent {
  const pullRequest = pullRequestOf(payload['object_attributes']);
  if (pullRequest === null) return ignored('merge request without an iid');
  const changedTo = labelTitles(at(payload, 'changes', 'labels', 'current'));
  const currentLabels = unique([
    ...labelTitles(payload['labels']),
    ...labelTitles(at(payload, 'object_attributes', 'labels')),
    ...changedTo,
  ]);
  return {
    kind: 'pr-labeled',
    ...envelope,
    pullRequest,
    addedLabels: added(changedTo, labelTitles(at(payload, 'changes', 'labels', 'previous'))),
    currentLabels,
    action: text(at(payload, 'object_attributes', 'action')),
  };
}

function routeOf(payload: JsonRecord): EventRoute {
  const url = text(at(payload, 'project', 'web_url'));
  return url === null ? {} : { repositoryUrl: url };
}

/** A merge request object (`merge_request` of a note, `object_attributes` of a MR hook). */
function pullRequestOf(value: unknown): PullRequestRef | null {
  const mr = asRecord(value);
  if (mr === null) return null;
  const number = positiveInt(mr['iid']);
  if (number === null) return null;
  const source = idString(mr['source_project_id']);
  const target = idString(mr['target_project_id']);
  const authorId = idString(mr['author_id']);
  return {
    number,
    headBranch: text(mr['source_branch']),
    sameRepository: source !== null && target !== null ? source === target : null,
    author: authorId === null ? null : { login: null, id: authorId, displayName: null },
  };
}

function actorOf(value: unknown): Actor | null {
  const user = asRecord(value);
  if (user === null) return null;
  return { login: text(user['username']), id: idString(user['id']), displayName: text(user['name']) };
}

function labelTitles(value: unknown): string[] {
  return list(value)
    .map((label) => text(asRecord(label)?.['title']))
    .filter((title): title is string => title !== null);
}
