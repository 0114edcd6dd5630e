/** The HTTP answer to a delivery: a status and a plain-text body (spec: "Response to a ticket trigger"). */
export interface WebhookAnswer {
  status: number;
  body: string;
}

export const answer = {
  accepted: (ticket: string, project: string): WebhookAnswer => ({ status: 202, body: `Accepted: ${ticket} in ${project}` }),
  alreadyClaimed: (ticket: string): WebhookAnswer => ({ status: 200, body: `Already claimed: ${ticket}` }),
  rejected: (reason: string): WebhookAnswer => ({ status: 200, body: `Rejected: ${reason}` }),
  claimFailed: (error: string): WebhookAnswer => ({ status: 500, body: `Claim failed: ${error}` }),
  filtered: (reason: string): WebhookAnswer => ({ status: 200, body: `Filtered: ${reason}` }),
  storeUnavailable: (): WebhookAnswer => ({ status: 503, body: 'store_unavailable' }),
  unauthorized: (why: string): WebhookAnswer => ({ status: 401, body: `Unauthorized: ${why}` }),
  badRequest: (why: string): WebhookAnswer => ({ status: 400, body: `Bad request: ${why}` }),
  inFlight: (): WebhookAnswer => ({ status: 503, body: 'delivery in progress; retry later' }),
};
