import type { createSlackAdapter } from '@chat-adapter/slack';
import type { ChatOrigin, ChatPlatform, ChatPlatformBlock } from '../../chat-platform.js';
import { isSet, obj, str } from '../raw-fields.js';
import { verifySlackRequest } from './slack-signature.js';

/** Slack's Web API when `chat.slack.api_url` is unset. */
export const SLACK_PUBLIC_API_URL = 'https://slack.com/api/';


/** `chat.slack.api_url` (or the public one), ending in `/` as the Web API client joins method names to it. */
function apiUrlOf(block: ChatPlatformBlock): string {
  const url = isSet(block['api_url']) ? block['api_url'] : SLACK_PUBLIC_API_URL;
  return url.endsWith('/') ? url : `${url}/`;
}

/**
 * Slack (Events API, interactivity and slash commands on one request URL, `/chat/slack`):
 * signed with the app's signing secret; replies through the Web API at `api_url`.
 */
export const slackChatPlatform: ChatPlatform = {
  name: 'slack',
  title: 'Slack',

  problems(block: ChatPlatformBlock) {
    const out = [];
    if (!isSet(block['signing_secret'])) out.push({ key: 'signing_secret', reason: 'without the signing secret no Slack request can be verified, so /chat/slack is not served' });
    if (!isSet(block['bot_token'])) out.push({ key: 'bot_token', reason: 'without the bot token (xoxb-…) the service cannot reply, so /chat/slack is not served' });
    return out;
  },

  verify(block, headers, rawBody, nowMs) {
    return Promise.resolve(verifySlackRequest(block['signing_secret'] ?? '', headers, rawBody, nowMs));
  },

  deliveryId(headers, rawBody) {
    // Events API retries (X-Slack-Retry-Num) repeat the envelope's event_id; commands and clicks are not retried.
    if (!String(headers['content-type'] ?? '').toLowerCase().startsWith('application/json')) return null;
    try {
      const body = JSON.parse(rawBody.toString('utf8')) as { event_id?: unknown };
      return typeof body.event_id === 'string' && body.event_id !== '' ? body.event_id : null;
    } catch {
      return null;
    }
  },

  apiTarget(block) {
    return apiUrlOf(block);
  },

  async probe(block, timeoutMs) {
    // auth.test: who the token is, nothing written.
    const res = await fetch(`${apiUrlOf(block)}auth.test`, {
      method: 'POST', headers: { authorization: `Bearer ${block['bot_token'] ?? ''}`, 'content-type': 'application/x-www-form-urlencoded' }, body: '',
      signal: AbortSignal.timeout(timeoutMs), redirect: 'manual',
    });
    const body = (await res.json().catch(() => null)) as { ok?: boolean; error?: string } | null;
    if (!res.ok || body?.ok !== true) throw new Error(`auth.test answered HTTP ${res.status}${body?.error ? ` (${body.error})` : ''}`);
  },

  // The adapter (and Slack's Web API client) loads only when Slack is configured.
  async createAdapter(block, logger) {
    const apiUrl = apiUrlOf(block);
    const { createSlackAdapter: create } = await import('@chat-adapter/slack');
    return create({
      botToken: block['bot_token'] ?? '',
      signingSecret: block['signing_secret'] ?? '',
      apiUrl,
      logger,
      // A followed run's edits must not wait half an hour behind a 429: a refused edit is retried by the next one.
      webClientOptions: { rejectRateLimitedCalls: true, retryConfig: { retries: 1 }, timeout: 10_000 },
    } as Parameters<typeof createSlackAdapter>[0]);
  },

  originOf(raw: unknown): ChatOrigin | null {
    const r = raw as Record<string, unknown> | null;
    if (!r || typeof r !== 'object') return null;
    // A message event: team, user, channel. A slash command: team_id, user_id, channel_id.
    // A block action: team.id, user.id, channel.id (user.team_id as a fallback).
    const workspace = str(r['team']) ?? str(r['team_id']) ?? str(obj(r['team'])['id']) ?? str(obj(r['user'])['team_id']);
    const user = str(r['user']) ?? str(r['user_id']) ?? str(obj(r['user'])['id']);
    const channel = str(r['channel']) ?? str(r['channel_id']) ?? str(obj(r['channel'])['id']) ?? str(obj(r['container'])['channel_id']);
    return workspace && user && channel ? { workspace, user, channel } : null;
  },
};
