import type { IncomingHttpHeaders } from 'node:http';
import { firstHeader } from '../payload-reader.js';

/** Event-type header names, neutral first (contract: either name is accepted). */
export const GITLAB_EVENT_HEADERS = ['x-platformb-event', 'x-gitlab-event'] as const;

/** `Issue Hook`, `Note Hook`, `Merge Request Hook`, … ; null when absent. */
export function gitlabEventName(headers: IncomingHttpHeaders): string | null {
  return firstHeader(headers, ...GITLAB_EVENT_HEADERS);
}

/**
 * GitLab's `Idempotency-Key` (stable across retries of one delivery), else the older
 * `X-Gitlab-Event-UUID`.
 */
export function gitlabDeliveryId(headers: IncomingHttpHeaders): string | null {
  return firstHeader(headers, 'idempotency-key', 'x-gitlab-event-uuid');
}
