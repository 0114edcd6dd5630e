import type { IncomingHttpHeaders } from 'node:http';
import { type InboundEvent, type TicketChange, ignored, ticketEvent } from '../inbound-event.js';
import { Platform } from '../platform.js';
import { type JsonRecord, asRecord, at, list, str, text } from '../payload-reader.js';
import { jiraDeliveryId } from './jira-delivery.js';
import { canonicalJiraIssueKey, jiraProjectKeyOf } from './jira-issue-key.js';

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
 * Ticket = `issue.key` in canonical (upper-case) form; anything that is not a Jira issue key is
 * ignored (see `jira-issue-key.ts`). Project key = the key's prefix (`BILL-12` → `BILL`). A
 * `fields.project.key` that names another project is ignored too: routing (and so the secret that
 * verifies the delivery) must follow the ticket the claim is made on. Never throws.
 */
export function parseJiraPayload(eventName: string | null, body: unknown, headers: IncomingHttpHeaders): InboundEvent {
  const payload = asRecord(body);
  if (payload === null) return ignored('body is not a JSON object');
  if (eventName === null) return ignored('no webhookEvent in the body');
  const issue = asRecord(payload['issue']);
  const rawKey = text(issue?.['key'])?.trim() ?? null;
  if (issue === null || rawKey === null) return ignored(`${shown(eventName)} without issue.key`);
  const key = canonicalJiraIssueKey(rawKey);
  if (key === null) return ignored(`issue.key ${shown(rawKey)} is not a Jira issue key`);
  const projectKey = jiraProjectKeyOf(key);
  const claimedProject = text(at(issue, 'fields', 'project', 'key'))?.trim();
  if (claimedProject !== undefined && claimedProject.toUpperCase() !== projectKey) {
    return ignored(`issue key ${key} does not belong to project ${shown(claimedProject)}`);
  }
  const envelope = {
    platform: Platform.Jira,
    eventName,
    deliveryId: jiraDeliveryId(headers),
    ticket: key,
    route: { projectKey },
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
      return ignored(`Jira event '${shown(eventName)}' is not used`);
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

/**
 * Payload text inside a reason: as it is when it looks like a key or an event name, else short
 * and JSON-quoted, so that control characters (a NUL, which PostgreSQL text refuses) and
 * megabytes of attacker text never reach the answer or the trigger log as they are.
 */
function shown(value: string): string {
  if (/^[\w:-]{1,64}$/.test(value)) return value;
  const head = value.length > MAX_SHOWN ? value.slice(0, MAX_SHOWN) : value;
  return `${JSON.stringify(head)}${head === value ? '' : '…'}`;
}

const MAX_SHOWN = 64;

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
