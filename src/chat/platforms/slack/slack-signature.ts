import type { IncomingHttpHeaders } from 'node:http';
import { constantTimeEquals } from '../../../platforms/webhook-signature.js';
import { createHmac } from 'node:crypto';
import type { ChatVerdict } from '../../chat-platform.js';

/** Slack refuses requests whose timestamp is more than five minutes away (replay window). */
export const SLACK_REPLAY_WINDOW_SECONDS = 5 * 60;

function header(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  return typeof value === 'string' ? value : Array.isArray(value) ? (value[0] ?? null) : null;
}

/** `v0=` + hex HMAC-SHA256 of `v0:<timestamp>:<raw body>` under the signing secret. */
export function slackSignature(secret: string, timestamp: string, rawBody: Buffer): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:`).update(rawBody).digest('hex')}`;
}

/**
 * Slack's request signing (v0): the HMAC over the raw bytes, compared in constant time, and a
 * timestamp inside the five-minute window, so a captured request cannot be replayed later.
 */
export function verifySlackRequest(secret: string, headers: IncomingHttpHeaders, rawBody: Buffer, nowMs: number): ChatVerdict {
  const timestamp = header(headers, 'x-slack-request-timestamp');
  const signature = header(headers, 'x-slack-signature');
  if (timestamp === null || signature === null) return { ok: false, reason: 'X-Slack-Signature and X-Slack-Request-Timestamp are required' };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'X-Slack-Request-Timestamp is not a number of seconds' };
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > SLACK_REPLAY_WINDOW_SECONDS) {
    return { ok: false, reason: 'the request is older than Slack\'s five-minute window (or from the future): a replay is refused' };
  }
  return constantTimeEquals(signature, slackSignature(secret, timestamp, rawBody)) ? { ok: true } : { ok: false, reason: 'the signature does not match' };
}
