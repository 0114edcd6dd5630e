import type { IncomingHttpHeaders } from 'node:http';
import {
  type Actor,
  type EventRoute,
  type InboundEvent,
  type ReviewerVote,
  type TicketChange,
  ignored,
  ticketEvent,
} from '../inbound-event.js';
import { Platform } from '../platform.js';
import { type JsonRecord, asRecord, at, header, idString, isTrue, list, num, positiveInt, str, text } from '../payload-reader.js';
import { AZURE_DEVOPS_CHANGE_HEADER, REVIEW_VOTE_CHANGE, azureDevOpsDeliveryId } from './azure-devops-delivery.js';

/**
 * Platform C (Azure DevOps service hooks) payload → event (contract, "From real payloads to the
 * specification's terms"). The envelope is `{id, eventType, publisherId, resource, …}`.
 *
 * | eventType | Result |
 * |---|---|
 * | `workitem.updated` | ticket `status` from `resource.fields["System.State"].newValue` (when it changed) and/or `labels-added` = `System.Tags` newValue minus oldValue (`;`-separated) |
 * | `workitem.commented` | ticket `comment` from `System.History` |
 * | `git.pullrequest.updated` with header `X-Service-Change: review-vote` | `pr-review-vote` |
 *
 * Ticket id: `resource.workItemId` when positive, else (for `workitem.updated`, whose
 * `resource.id` is the update number) `resource.revision.id`, else `resource.id`. Team project:
 * `System.TeamProject` of `resource.revision.fields`, else of `resource.fields`.
 * A comment added while saving other fields also shows as `System.History` on
 * `workitem.updated`; it is read only from `workitem.commented` so one comment is one trigger.
 * Pull request updates other than a vote change (push, status, reviewer list) start nothing.
 */
export function parseAzureDevOpsPayload(
  eventName: string | null,
  body: unknown,
  headers: IncomingHttpHeaders,
): InboundEvent {
  const payload = asRecord(body);
  if (payload === null) return ignored('body is not a JSON object');
  if (eventName === null) return ignored('service-hook envelope without eventType');
  const resource = asRecord(payload['resource']);
  if (resource === null) return ignored('service-hook envelope without a resource');
  const base = { platform: Platform.AzureDevOps, eventName, deliveryId: azureDevOpsDeliveryId(payload) };

  switch (eventName) {
    case 'workitem.updated':
      return workItemUpdated(base, resource);
    case 'workitem.commented':
      return workItemCommented(base, resource);
    case 'git.pullrequest.updated':
      return header(headers, AZURE_DEVOPS_CHANGE_HEADER)?.toLowerCase() === REVIEW_VOTE_CHANGE
        ? reviewVote(base, payload, resource)
        : ignored('pull request update that is not a review-vote change');
    default:
      return ignored(`Azure DevOps event '${eventName}' is not used`);
  }
}

type Base = { platform: typeof Platform.AzureDevOps; eventName: string; deliveryId: string | null };

function workItemUpdated(base: Base, resource: JsonRecord): InboundEvent {
  const ticket = positiveInt(resource['workItemId']) ?? positiveInt(at(resource, 'revision', 'id')) ?? positiveInt(resource['id']);
  if (ticket === null) return ignored('work item update without a work item id');
  const fields = asRecord(resource['fields']);
  const changes: TicketChange[] = [];

  const state = asRecord(fields?.['System.State']);
  const newState = text(state?.['newValue']);
  if (newState !== null && newState !== str(state?.['oldValue'])) changes.push({ type: 'status', status: newState.trim() });

  const tags = asRecord(fields?.['System.Tags']);
  const addedTags = tagsAdded(str(tags?.['newValue']), str(tags?.['oldValue']));
  if (addedTags.length > 0) changes.push({ type: 'labels-added', labels: addedTags });

  if (changes.length === 0) return ignored('work item update changes neither state nor tags');
  return ticketEvent({ ...base, ticket: String(ticket), route: workItemRoute(resource) }, changes);
}

function workItemCommented(base: Base, resource: JsonRecord): InboundEvent {
  const ticket = positiveInt(resource['workItemId']) ?? positiveInt(resource['id']);
  if (ticket === null) return ignored('work item comment without a work item id');
  const fields = asRecord(resource['fields']);
  const body = fieldValue(fields?.['System.History']);
  if (body === null) return ignored('work item comment without System.History');
  const author = identityName(fields?.['System.ChangedBy']) ?? identityName(resource['revisedBy']) ?? '';
  return ticketEvent({ ...base, ticket: String(ticket), route: workItemRoute(resource) }, [{ type: 'comment', body, author }]);
}

function reviewVote(base: Base, payload: JsonRecord, resource: JsonRecord): InboundEvent {
  const number = positiveInt(resource['pullRequestId']);
  if (number === null) return ignored('pull request update without pullRequestId');
  const sourceRef = text(resource['sourceRefName']);
  const reviewers: ReviewerVote[] = [];
  for (const item of list(resource['reviewers'])) {
    const reviewer = asRecord(item);
    const vote = num(reviewer?.['vote']);
    if (reviewer === null || vote === null) continue;
    reviewers.push({ reviewer: identityOf(reviewer), vote, isContainer: isTrue(reviewer['isContainer']) });
  }
  if (reviewers.length === 0) return ignored('review-vote change without any reviewer vote');
  const repository = asRecord(resource['repository']);
  const route: EventRoute = {};
  const remoteUrl = text(repository?.['remoteUrl']);
  const teamProject = text(at(repository, 'project', 'name'));
  if (remoteUrl !== null) route.repositoryUrl = remoteUrl;
  if (teamProject !== null) route.teamProject = teamProject;
  const createdBy = asRecord(resource['createdBy']);
  return {
    kind: 'pr-review-vote',
    ...base,
    route,
    pullRequest: {
      number,
      headBranch: sourceRef === null ? null : sourceRef.replace(/^refs\/heads\//, ''),
      // A pull request from a fork names its fork in `forkSource`.
      sameRepository: asRecord(resource['forkSource']) === null,
      author: createdBy === null ? null : identityOf(createdBy),
    },
    reviewers,
    summary: text(at(payload, 'message', 'text')),
  };
}

function workItemRoute(resource: JsonRecord): EventRoute {
  const teamProject =
    fieldValue(at(resource, 'revision', 'fields', 'System.TeamProject')) ??
    fieldValue(at(resource, 'fields', 'System.TeamProject'));
  return teamProject === null ? {} : { teamProject: teamProject.trim() };
}

/** A field that is either a plain value or, on `workitem.updated`, `{oldValue, newValue}`. */
function fieldValue(value: unknown): string | null {
  return text(value) ?? text(asRecord(value)?.['newValue']);
}

/** Identity fields are a display string in older payloads and an identity object in newer ones. */
function identityName(value: unknown): string | null {
  const record = asRecord(value);
  if (record === null) return text(value);
  return text(record['displayName']) ?? text(record['uniqueName']) ?? text(record['newValue']);
}

function identityOf(identity: JsonRecord): Actor {
  return {
    login: text(identity['uniqueName']),
    id: idString(identity['id']),
    displayName: text(identity['displayName']),
  };
}

/** Tags in `after` not in `before`; tags are `;`-separated and compare case-insensitively. */
function tagsAdded(after: string | null, before: string | null): string[] {
  const previous = new Set(splitTags(before).map((tag) => tag.toLowerCase()));
  const result: string[] = [];
  for (const tag of splitTags(after)) {
    const key = tag.toLowerCase();
    if (previous.has(key)) continue;
    previous.add(key);
    result.push(tag);
  }
  return result;
}

function splitTags(value: string | null): string[] {
  return (value ?? '')
    .split(';')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
}
