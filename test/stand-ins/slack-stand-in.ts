import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { type RecordedRequest, StandInResponse, StandInServer } from './stand-in-server.js';

/**
 * Slack for tests: the Web API methods the Chat SDK's Slack adapter calls (`auth.test`,
 * `chat.postMessage`, `chat.update`, `users.info`, `conversations.info`, `chat.postEphemeral`)
 * with Slack's real response shapes (HTTP 200 and `ok: false` with an `error` code on failure,
 * `invalid_auth` for a wrong token), and the other direction: Events API, slash-command and
 * interactivity payloads signed with Slack's v0 scheme, as Slack would send them to the app.
 * Configure `standIn.apiUrl` as `chat.slack.api_url`.
 */

export interface SlackMessage {
  channel: string;
  ts: string;
  /** The thread it was posted in (null: top level). */
  threadTs: string | null;
  text: string;
  blocks: unknown[];
  /** Every text the message had, first to last (posts and edits). */
  history: string[];
}

export const SLACK_TEAM = 'T0STANDIN';
export const SLACK_BOT_USER = 'U0BOTUSER';

let tsCounter = 0;
/** Slack timestamps: `<seconds>.<6 digits>`, unique per workspace. */
function nextTs(): string {
  tsCounter += 1;
  return `${Math.floor(Date.now() / 1000)}.${String(tsCounter).padStart(6, '0')}`;
}

export class SlackStandIn extends StandInServer {
  readonly messages: SlackMessage[] = [];
  /** Web API calls answered, by method (`chat.update` → n). */
  readonly calls = new Map<string, number>();

  constructor(readonly botToken: string, readonly signingSecret: string) {
    super();
  }

  /** `chat.slack.api_url`. */
  get apiUrl(): string {
    return `${this.url}/api/`;
  }

  /** Every message in a thread (the root and its replies) of a channel. */
  thread(channel: string, threadTs: string): SlackMessage[] {
    return this.messages.filter((m) => m.channel === channel && (m.ts === threadTs || m.threadTs === threadTs));
  }

  /** Posts and edits made by the app, in total. */
  apiCalls(...methods: string[]): number {
    return methods.reduce((n, m) => n + (this.calls.get(m) ?? 0), 0);
  }

  protected authorized(): boolean {
    return true; // Slack answers a bad token with 200 and `ok: false`, in route().
  }

  protected unauthorizedBody(): unknown {
    return { ok: false, error: 'invalid_auth' };
  }

  protected route(req: RecordedRequest, segments: string[]): StandInResponse {
    if (segments[0] !== 'api' || segments.length !== 2) return { status: 404, body: 'Not Found' };
    const method = segments[1]!;
    const args = argsOf(req);
    const token = bearer(req.headers) ?? (typeof args['token'] === 'string' ? args['token'] : null);
    if (token !== this.botToken) return ok({ ok: false, error: token ? 'invalid_auth' : 'not_authed' });
    this.calls.set(method, (this.calls.get(method) ?? 0) + 1);
    switch (method) {
      case 'auth.test':
        return ok({ ok: true, url: 'https://standin.slack.com/', team: 'Stand-in', user: 'pipeline-service', team_id: SLACK_TEAM, user_id: SLACK_BOT_USER, bot_id: 'B0BOT', is_enterprise_install: false });
      case 'users.info': {
        const id = String(args['user'] ?? '');
        return ok({ ok: true, user: { id, team_id: SLACK_TEAM, name: id.toLowerCase(), real_name: `User ${id}`, is_bot: false, profile: { display_name: `user-${id}`, real_name: `User ${id}` } } });
      }
      case 'conversations.info': {
        const id = String(args['channel'] ?? '');
        return ok({ ok: true, channel: { id, name: `channel-${id.toLowerCase()}`, is_channel: true, is_im: id.startsWith('D'), is_private: false, is_ext_shared: false } });
      }
      case 'chat.postMessage': {
        const channel = String(args['channel'] ?? '');
        if (!channel) return ok({ ok: false, error: 'channel_not_found' });
        const message: SlackMessage = {
          channel, ts: nextTs(), threadTs: typeof args['thread_ts'] === 'string' && args['thread_ts'] !== '' ? args['thread_ts'] : null,
          text: textOf(args), blocks: blocksOf(args), history: [],
        };
        message.history.push(message.text);
        this.messages.push(message);
        return ok({ ok: true, channel, ts: message.ts, message: wire(message) });
      }
      case 'chat.update': {
        const found = this.messages.find((m) => m.channel === args['channel'] && m.ts === args['ts']);
        if (!found) return ok({ ok: false, error: 'message_not_found' });
        found.text = textOf(args);
        found.blocks = blocksOf(args);
        found.history.push(found.text);
        return ok({ ok: true, channel: found.channel, ts: found.ts, text: found.text, message: wire(found) });
      }
      case 'chat.postEphemeral':
        return ok({ ok: true, message_ts: nextTs() });
      default:
        return ok({ ok: false, error: 'unknown_method' });
    }
  }

  // --- what Slack sends to the app -------------------------------------------------------------

  /** Headers of a signed request (v0: HMAC-SHA256 of `v0:<ts>:<body>`), at `timestamp` seconds. */
  sign(body: string, timestamp = Math.floor(Date.now() / 1000), secret = this.signingSecret): Record<string, string> {
    const signature = `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
    return { 'x-slack-request-timestamp': String(timestamp), 'x-slack-signature': signature };
  }

  /** An Events API `event_callback` carrying an `app_mention` (or a DM `message` with `im`). */
  mention(user: string, channel: string, text: string, options: { threadTs?: string; eventId?: string; im?: boolean } = {}): { body: string; eventId: string; ts: string } {
    const ts = nextTs();
    const eventId = options.eventId ?? `Ev${ts.replace('.', '')}`;
    const event = options.im
      ? { type: 'message', channel_type: 'im', user, text, ts, channel, team: SLACK_TEAM, event_ts: ts, ...(options.threadTs ? { thread_ts: options.threadTs } : {}) }
      : { type: 'app_mention', user, text: `<@${SLACK_BOT_USER}> ${text}`, ts, channel, team: SLACK_TEAM, event_ts: ts, ...(options.threadTs ? { thread_ts: options.threadTs } : {}) };
    const body = JSON.stringify({
      token: 'verification-token-unused', team_id: SLACK_TEAM, api_app_id: 'A0APP', event, type: 'event_callback', event_id: eventId,
      event_time: Math.floor(Date.now() / 1000), authorizations: [{ team_id: SLACK_TEAM, user_id: SLACK_BOT_USER, is_bot: true }],
    });
    return { body, eventId, ts };
  }

  /** A plain reply in a thread (Events API `message` in a channel the app is in). */
  threadReply(user: string, channel: string, threadTs: string, text: string): { body: string; eventId: string } {
    const ts = nextTs();
    const eventId = `Ev${ts.replace('.', '')}`;
    const body = JSON.stringify({
      token: 'verification-token-unused', team_id: SLACK_TEAM, api_app_id: 'A0APP', type: 'event_callback', event_id: eventId, event_time: Math.floor(Date.now() / 1000),
      event: { type: 'message', channel_type: 'channel', user, text, ts, thread_ts: threadTs, channel, team: SLACK_TEAM, event_ts: ts },
    });
    return { body, eventId };
  }

  /** A slash command as Slack posts it (form-encoded). */
  slashCommand(user: string, channel: string, command: string, text: string): string {
    return new URLSearchParams({
      token: 'verification-token-unused', team_id: SLACK_TEAM, team_domain: 'standin', channel_id: channel, channel_name: 'general',
      user_id: user, user_name: user.toLowerCase(), command, text, api_app_id: 'A0APP', is_enterprise_install: 'false',
      response_url: `${this.url}/commands/response`, trigger_id: `trig.${Date.now()}`,
    }).toString();
  }

  /** A click on a button of `message` (interactivity `block_actions`, form-encoded `payload`). */
  click(user: string, message: SlackMessage, label: string): string {
    const button = buttonsOf(message).find((b) => b.text === label);
    if (!button) throw new Error(`no button "${label}" on the message (buttons: ${buttonsOf(message).map((b) => b.text).join(', ')})`);
    const payload = {
      type: 'block_actions', team: { id: SLACK_TEAM, domain: 'standin' }, user: { id: user, username: user.toLowerCase(), name: user.toLowerCase(), team_id: SLACK_TEAM },
      api_app_id: 'A0APP', token: 'verification-token-unused', trigger_id: `trig.${Date.now()}`,
      container: { type: 'message', message_ts: message.ts, channel_id: message.channel, is_ephemeral: false, ...(message.threadTs ? { thread_ts: message.threadTs } : {}) },
      channel: { id: message.channel, name: 'general' },
      message: { type: 'message', ts: message.ts, text: message.text, blocks: message.blocks, ...(message.threadTs ? { thread_ts: message.threadTs } : {}) },
      response_url: `${this.url}/actions/response`,
      actions: [{ type: 'button', action_id: button.actionId, block_id: button.blockId, text: { type: 'plain_text', text: label }, value: button.value, action_ts: `${Date.now() / 1000}` }],
    };
    return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  }
}

/** The buttons of a message's `actions` blocks. */
export function buttonsOf(message: SlackMessage): { text: string; actionId: string; value: string; blockId: string }[] {
  return message.blocks.flatMap((block) => {
    const b = block as { type?: string; block_id?: string; elements?: { type?: string; action_id?: string; value?: string; text?: { text?: string } }[] };
    if (b.type !== 'actions') return [];
    return (b.elements ?? []).filter((e) => e.type === 'button').map((e) => ({ text: e.text?.text ?? '', actionId: e.action_id ?? '', value: e.value ?? '', blockId: b.block_id ?? '' }));
  });
}

function ok(body: unknown): StandInResponse {
  return { status: 200, body };
}

function bearer(headers: IncomingHttpHeaders): string | null {
  const auth = headers.authorization;
  return typeof auth === 'string' && auth.startsWith('Bearer ') ? auth.slice(7) : null;
}

/** Web API arguments: form-encoded (what @slack/web-api sends) or JSON. */
function argsOf(req: RecordedRequest): Record<string, unknown> {
  if (req.body && typeof req.body === 'object') return req.body as Record<string, unknown>;
  if (typeof req.body === 'string') return Object.fromEntries(new URLSearchParams(req.body));
  return Object.fromEntries(req.query);
}

function blocksOf(args: Record<string, unknown>): unknown[] {
  const raw = args['blocks'];
  if (Array.isArray(raw)) return raw;
  if (typeof raw === 'string' && raw !== '') {
    try {
      return JSON.parse(raw) as unknown[];
    } catch {
      return [];
    }
  }
  return [];
}

/** The message's text, or what its blocks say when it has only blocks. */
function textOf(args: Record<string, unknown>): string {
  const blockText = blocksOf(args).map((b) => {
    const block = b as { type?: string; text?: string | { text?: string } };
    return typeof block.text === 'string' ? block.text : block.text?.text ?? '';
  }).filter(Boolean).join('\n');
  // `markdown_text` is chat.postMessage's / chat.update's markdown form (Slack renders it as a markdown block).
  return blockText || String(args['text'] ?? args['markdown_text'] ?? '');
}

function wire(m: SlackMessage): Record<string, unknown> {
  return { type: 'message', user: SLACK_BOT_USER, bot_id: 'B0BOT', text: m.text, ts: m.ts, ...(m.threadTs ? { thread_ts: m.threadTs } : {}), ...(m.blocks.length ? { blocks: m.blocks } : {}) };
}
