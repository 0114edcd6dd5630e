import type { IncomingHttpHeaders } from 'node:http';
import { type EventRoute, type InboundEvent, type TicketChange, ignored, ticketEvent } from '../inbound-event.js';
import { Platform } from '../platform.js';
import { type JsonRecord, asRecord, at, list, str, text } from '../payload-reader.js';
import { jiraDeliveryId } from './jira-delivery.js';

/**
 * Platform D (Jira Cloud / Data Center) payload → event (contract, "From real payloads to the
 * specification's terms"). `eventName` is the normalised `webhookEvent` (see `jiraEventName`).
 *
 * | Event | Result |
 * |---|---|
 * | `issue_created` | ticket `status` = `issue.fields.status.name`; labels present at creation also count as added |
 * | `issue_updated` | changelog item `field: status` → `status` = `toString`; `field: labels` → `labels-added` = space-separated `toString` minus `fromString` |
 * | `comment_created` | ticket `comment` = `comment.body` |
 *
 * Ticket = `issue.key`; project key = `issue.fields.project.key`, else the key's prefix
 * (`BILL-12` → `BILL`, Jira keys are always `<PROJECT>-<number>`). Never throws.
 */
export function parseJiraPayload(eventName: string | null, body: unknown, headers: IncomingHttpHeaders): InboundEvent {
  const payload = asRecord(body);
  if (payload === null) return ignored('body is not a JSON object');
  if (eventName === null) return ignored('no webhookEvent in the body');
  const issue = asRecord(payload['issue']);
  const key = text(issue?.['key'])?.trim() ?? null;
  if (issue === null || key === null) return ignored(`${eventName} without issue.key`);
  const envelope = {
    platform: Platform.Jira,
    eventName,
    deliveryId: jiraDeliveryId(headers),
    ticket: key,
    route: routeOf(issue, key),
  };

  switch (eventName) {
    case 'issue_created':
      return ticketEvent(envelope, createdChanges(issue));
    case 'issue_updated':
      return ticketEvent(envelope, changelogChanges(payload));
    case 'comment_created': {
      const comment = asRecord(payload['comment']);
      const commentBody = commentText(comment?.['body']);
      if (comment === null || commentBody === null) return ignored('comment_created without comment.body');
      const author = asRecord(comment['author']);
      const name = text(author?.['displayName']) ?? text(author?.['name']) ?? text(author?.['accountId']) ?? '';
      return ticketEvent(envelope, [{ type: 'comment', body: commentBody, author: name }]);
    }
    default:
      return ignored(`Jira event '${eventName}' is not used`);
  }
}

function createdChanges(issue: JsonRecord): TicketChange[] {
  const changes: TicketChange[] = [];
  const status = text(at(issue, 'fields', 'status', 'name'));
  if (status !== null) changes.push({ type: 'status', status: status.trim() });
  const labels = list(at(issue, 'fields', 'labels'))
    .map((label) => text(label)?.trim() ?? null)
    .filter((label): label is string => label !== null);
  if (labels.length > 0) changes.push({ type: 'labels-added', labels: [...new Set(labels)] });
  return changes;
}

function changelogChanges(payload: JsonRecord): TicketChange[] {
  const changes: TicketChange[] = [];
  for (const entry of list(at(payload, 'changelog', 'items'))) {
    const item = asRecord(entry);
    const field = (text(item?.['field']) ?? text(item?.['fieldId']))?.toLowerCase();
    if (item === null || field === undefined) continue;
    if (field === 'status') {
      const status = text(item['toString']);
      if (status !== null) changes.push({ type: 'status', status: status.trim() });
    } else if (field === 'labels') {
      const before = new Set(splitLabels(item['fromString']));
      const labels = splitLabels(item['toString']).filter((label) => !before.has(label));
      if (labels.length > 0) changes.push({ type: 'labels-added', labels: [...new Set(labels)] });
    }
  }
  return changes;
}

/** Jira labels cannot contain spaces; the changelog lists them space-separated. */
function splitLabels(value: unknown): string[] {
  return (str(value) ?? '').split(/\s+/).filter((label) => label !== '');
}

function routeOf(issue: JsonRecord, key: string): EventRoute {
  const projectKey = text(at(issue, 'fields', 'project', 'key'))?.trim() ?? /^([A-Za-z][A-Za-z0-9_]*)-\d+$/.exec(key)?.[1];
  return projectKey === undefined ? {} : { projectKey };
}

/**
 * Comment bodies are wiki-markup strings in webhook deliveries; an Atlassian Document Format
 * object (REST v3 shape) is flattened to its text, one line per block.
 */
function commentText(body: unknown): string | null {
  if (typeof body === 'string') return body;
  const doc = asRecord(body);
  const flattened = doc === null ? '' : flatten(doc, 0);
  return flattened === '' ? null : flattened;
}

const MAX_ADF_DEPTH = 64;
const INLINE_TYPES = new Set(['text', 'hardBreak', 'mention', 'emoji', 'inlineCard', 'date', 'status']);

function flatten(node: JsonRecord, depth: number): string {
  const own = str(node['text']);
  if (own !== null) return own;
  if (str(node['type']) === 'hardBreak') return '\n';
  if (depth >= MAX_ADF_DEPTH) return '';
  const children = list(node['content'])
    .map((child) => asRecord(child))
    .filter((child): child is JsonRecord => child !== null);
  const inline = children.every((child) => INLINE_TYPES.has(str(child['type']) ?? ''));
  return children.map((child) => flatten(child, depth + 1)).join(inline ? '' : '\n');
}
