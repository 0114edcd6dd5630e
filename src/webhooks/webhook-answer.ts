import { clipText } from '../common/clip-text.js';

/** The HTTP answer to a delivery: a status and a plain-text body (spec: "Response to a ticket trigger"). */
export interface WebhookAnswer {
  status: number;
  body: string;
}

/**
 * Longest text (in UTF-16 units, "…" included) placed into an answer. Reasons and errors can
 * carry payload text (a label, an event name); a sender must not get its megabyte echoed back.
 */
export const MAX_ANSWER_TEXT = 200;

function clip(text: string): string {
  return clipText(text, MAX_ANSWER_TEXT);
}

export const answer = {
  accepted: (ticket: string, project: string): WebhookAnswer => ({ status: 202, body: `Accepted: ${clip(ticket)} in ${clip(project)}` }),
  alreadyClaimed: (ticket: string): WebhookAnswer => ({ status: 200, body: `Already claimed: ${clip(ticket)}` }),
  rejected: (reason: string): WebhookAnswer => ({ status: 200, body: `Rejected: ${clip(reason)}` }),
  claimFailed: (error: string): WebhookAnswer => ({ status: 500, body: `Claim failed: ${clip(error)}` }),
  filtered: (reason: string): WebhookAnswer => ({ status: 200, body: `Filtered: ${clip(reason)}` }),
  storeUnavailable: (): WebhookAnswer => ({ status: 503, body: 'store_unavailable' }),
  unauthorized: (why: string): WebhookAnswer => ({ status: 401, body: `Unauthorized: ${clip(why)}` }),
  badRequest: (why: string): WebhookAnswer => ({ status: 400, body: `Bad request: ${clip(why)}` }),
  unsupportedMediaType: (why: string): WebhookAnswer => ({ status: 415, body: `Unsupported Media Type: ${clip(why)}` }),
  inFlight: (): WebhookAnswer => ({ status: 503, body: 'delivery in progress; retry later' }),
};
