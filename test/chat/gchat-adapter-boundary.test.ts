import { createGoogleChatAdapter } from '@chat-adapter/gchat';
import { createIoRedisState } from '@chat-adapter/state-ioredis';
import { Chat, type Logger } from 'chat';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GoogleServiceAccountTokens } from '../../src/chat/outbound-auth/google-service-account-token.js';
import { GoogleChatTokenVerifier } from '../../src/chat/verification/google-chat-token.js';
import { CHAT_SPACE, chatCardClickedEvent, chatMessageEvent, legacyMessageEvent } from '../stand-ins/google-chat-events.js';
import { GoogleChatStandIn } from '../stand-ins/google-chat-stand-in.js';
import { REDIS_URL, deleteKeys, uniqueKeyPrefix } from '../support/test-store.js';

/**
 * The boundary between the Chat SDK's Google Chat adapter and Google, on the wire: the real `Chat`
 * with the real `@chat-adapter/gchat` (googleapis client under it), configured as our server will
 * configure it (docs/chat-platform-adapters.md), against the Google Chat stand-in. The adapter
 * cannot check the event token against a configured key source, so it runs with its own check
 * off and our verifier (the project-number JWT against `jwks_url`) decides first, exactly as the
 * route will; replies take a token from the key file's `token_uri` and reach the Chat API at
 * `api_url`.
 */

const PROJECT_NUMBER = '734928105562';
const ENDPOINT = 'https://pipeline.example/chat/gchat';
const silent: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };

describe('Google Chat adapter against the Google Chat stand-in', () => {
  let standIn: GoogleChatStandIn;
  let redis: Redis;
  let keyPrefix: string;
  let chat: Chat;
  let verifier: GoogleChatTokenVerifier;
  const refusals: string[] = [];
  const handled: string[] = [];

  beforeAll(async () => {
    standIn = await new GoogleChatStandIn({ projectNumber: PROJECT_NUMBER }).start();
    redis = new Redis(REDIS_URL);
    keyPrefix = uniqueKeyPrefix('gchat-boundary');
    verifier = new GoogleChatTokenVerifier({ projectNumber: PROJECT_NUMBER, jwksUrl: standIn.jwksUrl });
    const tokens = new GoogleServiceAccountTokens({ credentials: standIn.serviceAccount });
    chat = new Chat({
      userName: 'pipeline',
      logger: silent,
      state: createIoRedisState({ client: redis, keyPrefix, logger: silent }),
      adapters: {
        gchat: createGoogleChatAdapter({
          auth: tokens.authClient(),
          apiUrl: standIn.apiUrl,
          botUserId: standIn.appUserName,
          // Our verifier decides before the adapter sees the request; '' shadows the GOOGLE_CHAT_* variables.
          disableSignatureVerification: true,
          googleChatProjectNumber: '',
          pubsubAudience: '',
          userName: 'pipeline',
          logger: silent,
        }),
      },
    });
    chat.onNewMention(async (thread, message) => {
      handled.push(message.text);
      const sent = await thread.post(`Starting a run for: ${message.text}`);
      await sent.edit(`Run admitted for: ${message.text}`);
    });
    chat.onAction('confirm', async (event) => {
      handled.push(`action:${event.value ?? ''}`);
      await event.thread?.post(`Confirmed ${event.value ?? ''}`);
    });
  });

  afterEach(() => {
    refusals.length = 0;
    handled.length = 0;
  });

  afterAll(async () => {
    await chat?.shutdown().catch(() => undefined);
    await deleteKeys(redis, keyPrefix);
    redis.disconnect();
    await standIn?.stop();
  });

  /** What the route will do: our verifier first (401 on refusal), then the adapter; waits for its background work. */
  async function deliver(event: Record<string, unknown>, authorization: string | null): Promise<Response> {
    const verdict = await verifier.verify(authorization);
    if (!verdict.ok) {
      refusals.push(verdict.reason);
      return new Response('Unauthorized', { status: 401 });
    }
    const tasks: Promise<unknown>[] = [];
    const request = new Request(ENDPOINT, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'Google-Dynamite', ...(authorization === null ? {} : { authorization }) },
      body: JSON.stringify(event),
    });
    const response = await chat.webhooks.gchat(request, { waitUntil: (task) => tasks.push(task) });
    await Promise.allSettled(tasks);
    return response;
  }

  it('accepts a signed mention, and its reply (in the event\'s thread) and the reply\'s edit reach the Chat API with a token from the key file\'s token_uri', async () => {
    // The app's display name differs from the bot's userName: botUserId lets the adapter rewrite the mention.
    const event = chatMessageEvent('fix BILL-12', { mention: { name: standIn.appUserName, displayName: 'Pipeline Service' } });
    const response = await deliver(event, `Bearer ${standIn.mintChatToken()}`);

    expect(response.status).toBe(200);
    expect(refusals).toEqual([]);
    expect(handled).toEqual(['@pipeline fix BILL-12']);
    const thread = ((event['chat'] as { messagePayload: { message: { thread: { name: string } } } }).messagePayload.message.thread.name);
    const sent = standIn.messagesIn(CHAT_SPACE.name);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.replyOption).toBe('REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD');
    expect(sent[0]!.versions[0]).toMatchObject({ text: 'Starting a run for: @pipeline fix BILL-12', thread: { name: thread } });
    expect(sent[0]!.message).toMatchObject({ text: 'Run admitted for: @pipeline fix BILL-12' });
    const apiCalls = standIn.requests.filter((r) => r.path.startsWith('/v1/spaces/'));
    expect(apiCalls.map((r) => r.method)).toEqual(['POST', 'PUT']);
    expect(apiCalls[1]!.query.get('updateMask')).toContain('text');
    for (const call of apiCalls) expect(call.headers.authorization).toMatch(/^Bearer ya29\./);
    expect(standIn.tokensIssued).toBe(1);
  });

  it('accepts a signed card click and the handler\'s post reaches the Chat API in the card\'s thread', async () => {
    const before = standIn.messages.length;
    const click = chatCardClickedEvent(
      { invokedFunction: ENDPOINT, parameters: { actionId: 'confirm', value: 'BILL-12' } },
      { name: `${CHAT_SPACE.name}/messages/card1.card1`, threadName: `${CHAT_SPACE.name}/threads/card1` },
    );
    const response = await deliver(click, `Bearer ${standIn.mintChatToken()}`);

    expect(response.status).toBe(200);
    expect(handled).toEqual(['action:BILL-12']);
    const posted = standIn.messages.slice(before);
    expect(posted.map((m) => m.message['text'])).toEqual(['Confirmed BILL-12']);
    expect(posted[0]!.message).toMatchObject({ thread: { name: `${CHAT_SPACE.name}/threads/card1` } });
  });

  it('when the API refuses the cached token, the adapter\'s call takes a new one from the token endpoint and succeeds', async () => {
    const before = standIn.messages.length;
    const issued = standIn.tokensIssued;
    standIn.revokeAccessTokens();
    const response = await deliver(chatMessageEvent('fix BILL-16', { mention: { name: standIn.appUserName, displayName: 'Pipeline Service' } }), `Bearer ${standIn.mintChatToken()}`);

    expect(response.status).toBe(200);
    expect(standIn.tokensIssued).toBe(issued + 1);
    expect(standIn.messages.slice(before).map((m) => m.message['text'])).toEqual(['Run admitted for: @pipeline fix BILL-16']);
  });

  it('a classic interaction event (type MESSAGE) passes verification but the adapter dispatches nothing: the app must use the add-on event format', async () => {
    const response = await deliver(legacyMessageEvent('fix BILL-14', { mention: { name: standIn.appUserName, displayName: 'pipeline' } }), `Bearer ${standIn.mintChatToken()}`);

    expect(response.status).toBe(200);
    expect(handled).toEqual([]);
  });

  const refusedCases: Array<[string, (s: GoogleChatStandIn) => string | null, string]> = [
    ['no Authorization header', () => null, 'missing'],
    ['a bearer that is not a JWT', () => 'Bearer AbCdEf123456', 'malformed'],
    ['a token signed by a key the Chat account does not publish', (s) => `Bearer ${s.mintChatToken({ foreignKey: true })}`, 'signature'],
    ['a token for another project (audience)', (s) => `Bearer ${s.mintChatToken({ audience: '111111111111' })}`, 'audience'],
    ['a token from another issuer', (s) => `Bearer ${s.mintChatToken({ issuer: 'someone@evil.iam.gserviceaccount.com' })}`, 'issuer'],
    ['an expired token', (s) => `Bearer ${s.mintChatToken({ expiresIn: -600 })}`, 'expired'],
    ['an ID token for the endpoint-URL audience (not this configuration)', (s) => `Bearer ${s.mintEndpointIdToken(ENDPOINT)}`, 'audience'],
  ];

  it.each(refusedCases)('refuses %s with 401 and sends nothing', async (_label, authorization, reason) => {
    const before = standIn.messages.length;
    const response = await deliver(chatMessageEvent('fix BILL-13', { mention: { name: standIn.appUserName, displayName: 'pipeline' } }), authorization(standIn));

    expect(response.status).toBe(401);
    expect(refusals).toEqual([reason]);
    expect(handled).toEqual([]);
    expect(standIn.messages.length).toBe(before);
  });
});
