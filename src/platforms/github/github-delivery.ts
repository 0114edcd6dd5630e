import type { IncomingHttpHeaders } from 'node:http';
import { firstHeader, header } from '../payload-reader.js';

/** Event-type header names, neutral first (contract: either name is accepted). */
export const GITHUB_EVENT_HEADERS = ['x-platforma-event', 'x-github-event'] as const;

/** `issues`, `issue_comment`, … from `X-PlatformA-Event` or `X-GitHub-Event`; null when absent. */
export function githubEventName(headers: IncomingHttpHeaders): string | null {
  return firstHeader(headers, ...GITHUB_EVENT_HEADERS);
}

/** `X-GitHub-Delivery` (a GUID per delivery, kept across redeliveries). */
export function githubDeliveryId(headers: IncomingHttpHeaders): string | null {
  return header(headers, 'x-github-delivery');
}
