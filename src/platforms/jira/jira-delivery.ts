import type { IncomingHttpHeaders } from 'node:http';
import { asRecord, header, text } from '../payload-reader.js';

/**
 * The event name from body `webhookEvent`, with Jira's `jira:` prefix removed
 * (`jira:issue_updated` → `issue_updated`, `comment_created` unchanged); null when absent.
 */
export function jiraEventName(body: unknown): string | null {
  const raw = text(asRecord(body)?.['webhookEvent']);
  return raw === null ? null : raw.trim().replace(/^jira:/i, '');
}

/** `X-Atlassian-Webhook-Identifier` (stable across retries of one delivery). */
export function jiraDeliveryId(headers: IncomingHttpHeaders): string | null {
  return header(headers, 'x-atlassian-webhook-identifier');
}
