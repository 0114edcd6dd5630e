import type { IncomingHttpHeaders } from 'node:http';
import { asRecord, header, text } from '../payload-reader.js';

/**
 * The service-hook event type: body `eventType` (`workitem.updated`, …), else the optional
 * `X-PlatformC-Event` header. The body wins because it is what Azure DevOps itself writes.
 */
export function azureDevOpsEventName(body: unknown, headers: IncomingHttpHeaders): string | null {
  return text(asRecord(body)?.['eventType']) ?? header(headers, 'x-platformc-event');
}

/** The notification's `id` in the service-hook envelope. */
export function azureDevOpsDeliveryId(body: unknown): string | null {
  return text(asRecord(body)?.['id']);
}

/** Header a review-vote subscription adds (spec: `X-Service-Change: review-vote`). */
export const AZURE_DEVOPS_CHANGE_HEADER = 'x-service-change';
export const REVIEW_VOTE_CHANGE = 'review-vote';

/** Azure DevOps service-hook envelope: `{ publisherId: "tfs", eventType: "workitem.updated", … }`. */
export function isServiceHookEnvelope(body: unknown): boolean {
  const envelope = asRecord(body);
  return envelope !== null && text(envelope['publisherId']) !== null && text(envelope['eventType']) !== null;
}
