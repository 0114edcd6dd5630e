import { createIoRedisState } from '@chat-adapter/state-ioredis';
import { createTeamsAdapter } from '@chat-adapter/teams';
import { Chat, type Logger } from 'chat';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BotFrameworkClientCredentials } from '../../src/chat/outbound-auth/bot-framework-client-credentials.js';
import { BotFrameworkTokenVerifier } from '../../src/chat/verification/bot-framework-token.js';
import { BotFrameworkStandIn } from '../stand-ins/bot-framework-stand-in.js';
import { TEAMS_USER, teamsCardActionInvoke, teamsCardSubmitMessage, teamsMessageActivity, type TeamsActivityContext } from '../stand-ins/bot-framework-activities.js';
import { REDIS_URL, deleteKeys, uniqueKeyPrefix } from '../support/test-store.js';

/**
 * The boundary between the Chat SDK's Teams adapter and the Bot Framework, on the wire: the real
 * `Chat` with the real `@chat-adapter/teams` (and the Teams SDK under it), configured as our
 * server will configure it (docs/chat-platform-adapters.md), against the Bot Framework stand-in.
 * Inbound activities are verified by our `webhookVerifier` against the stand-in's OpenID metadata;
 * replies take a client-credentials token from the stand-in's token endpoint and reach its
 * Connector API at the activity's `serviceUrl`.
 */

const APP_ID = 'a1b2c3d4-0000-4000-8000-00000000b0f1';
const APP_PASSWORD = 'stand-in-app-password';
const silent: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };

describe('Teams adapter against the Bot Framework stand-in', () => {
  let standIn: BotFrameworkStandIn;
  let redis: Redis;
  let keyPrefix: string;
  let chat: Chat;
  const refusals: string[] = [];
  const handled: string[] = [];
  let ctx: TeamsActivityContext;

  beforeAll(async () => {
    standIn = await new BotFrameworkStandIn({ appId: APP_ID, appPassword: APP_PASSWORD }).start();
    standIn.addMember({ id: TEAMS_USER.id, name: TEAMS_USER.name, aadObjectId: TEAMS_USER.aadObjectId, email: 'megan@contoso.example', userPrincipalName: 'megan@contoso.example' });
    redis = new Redis(REDIS_URL);
    keyPrefix = uniqueKeyPrefix('teams-boundary');
    const verifier = new BotFrameworkTokenVerifier({ appId: APP_ID, openIdMetadataUrl: standIn.openIdMetadataUrl });
    const credentials = new BotFrameworkClientCredentials({ appId: APP_ID, appPassword: APP_PASSWORD, tenantId: standIn.tenantId, tokenUrl: standIn.tokenUrl });
    chat = new Chat({
      userName: 'pipeline',
      logger: silent,
      state: createIoRedisState({ client: redis, keyPrefix, logger: silent }),
      adapters: {
        teams: createTeamsAdapter({
          appId: APP_ID,
          appTenantId: standIn.tenantId,
          appType: 'SingleTenant',
          logger: silent,
          webhookVerifier: verifier.asWebhookVerifier((v) => refusals.push(v.reason)),
          token: credentials.asTokenFactory(),
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
    ctx = {
      serviceUrl: standIn.serviceUrl,
      botAppId: APP_ID,
      botName: 'pipeline',
      tenantId: standIn.tenantId,
      scope: 'channel',
      user: TEAMS_USER,
      conversationId: '19:8f2a4c7be1d94b0a9f3c6e5d2b1a0c9f@thread.tacv2',
      team: { id: '19:3e1d5f7a9b2c4d6e8f0a1b3c5d7e9f0a@thread.tacv2', aadGroupId: '0d7c3b2a-9e8f-4a6b-8c1d-5e4f3a2b1c0d', name: 'Billing' },
    };
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

  /** Delivers an activity as the channel does; resolves once the adapter answered and its background work ended. */
  async function deliver(activity: Record<string, unknown>, authorization: string | null): Promise<Response> {
    const tasks: Promise<unknown>[] = [];
    const request = new Request('http://127.0.0.1/chat/teams', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(authorization === null ? {} : { authorization }) },
      body: JSON.stringify(activity),
    });
    const response = await chat.webhooks.teams(request, { waitUntil: (task) => tasks.push(task) });
    await Promise.allSettled(tasks);
    return response;
  }

  it('accepts a signed channel mention, and its reply and the reply\'s edit reach the Connector API at the activity\'s serviceUrl with a token from the token endpoint', async () => {
    const activity = teamsMessageActivity(ctx, 'fix BILL-12');
    const response = await deliver(activity, `Bearer ${standIn.mintActivityToken()}`);

    expect(response.status).toBe(200);
    expect(refusals).toEqual([]);
    // The adapter keeps the mention in the text as `@<bot name>`: intents must strip it.
    expect(handled).toEqual(['@pipeline fix BILL-12']);
    const conversationId = (activity['conversation'] as { id: string }).id;
    const sent = standIn.sentTo(conversationId);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.versions[0]).toMatchObject({ type: 'message', text: 'Starting a run for: @pipeline fix BILL-12', from: { id: APP_ID } });
    expect(sent[0]!.activity).toMatchObject({ type: 'message', text: 'Run admitted for: @pipeline fix BILL-12' });
    const connectorCalls = standIn.requests.filter((r) => r.path.startsWith('/amer/v3/conversations/'));
    // The adapter looks the sender up among the conversation's members (for the e-mail), then posts and edits.
    expect(connectorCalls.map((r) => `${r.method} ${r.path.split('/').slice(5).join('/')}`)).toEqual([
      `GET members/${TEAMS_USER.id}`,
      'POST activities',
      `PUT activities/${sent[0]!.id}`,
    ]);
    for (const call of connectorCalls) expect(call.headers.authorization).toMatch(/^Bearer ey/);
    expect(standIn.tokensIssued).toBeGreaterThanOrEqual(1);
    const tokenCall = standIn.requests.find((r) => r.path.endsWith('/oauth2/v2.0/token'));
    expect(tokenCall?.path).toBe(`/${standIn.tenantId}/oauth2/v2.0/token`);
  });

  it('accepts a signed Adaptive Card action (invoke adaptiveCard/action) and the handler\'s post reaches the Connector API', async () => {
    const before = standIn.activities.length;
    const invoke = teamsCardActionInvoke(ctx, { verb: 'confirm', data: { actionId: 'confirm', value: 'BILL-12' } }, '1710000000000');
    const response = await deliver(invoke, `Bearer ${standIn.mintActivityToken()}`);

    expect(response.status).toBe(200);
    expect(handled).toEqual(['action:BILL-12']);
    expect(standIn.activities.slice(before).map((a) => a.activity['text'])).toEqual(['Confirmed BILL-12']);
  });

  it('accepts a signed Action.Submit click (a message carrying the card\'s data) as the same action', async () => {
    const before = standIn.activities.length;
    const response = await deliver(teamsCardSubmitMessage(ctx, { actionId: 'confirm', value: 'BILL-15' }, '1710000000001'), `Bearer ${standIn.mintActivityToken()}`);

    expect(response.status).toBe(200);
    expect(handled).toEqual(['action:BILL-15']);
    expect(standIn.activities.slice(before).map((a) => a.activity['text'])).toEqual(['Confirmed BILL-15']);
  });

  const refusedCases: Array<[string, (s: BotFrameworkStandIn) => string | null, string | null]> = [
    ['no Authorization header', () => null, null],
    ['a bearer that is not a JWT', () => 'Bearer not-a-token', 'malformed'],
    ['a token signed by a key the metadata does not publish', (s) => `Bearer ${s.mintActivityToken({ foreignKey: true })}`, 'signature'],
    ['a token for another bot (audience)', (s) => `Bearer ${s.mintActivityToken({ audience: 'another-app-id' })}`, 'audience'],
    ['a token from another issuer', (s) => `Bearer ${s.mintActivityToken({ issuer: 'https://sts.windows.net/evil/' })}`, 'issuer'],
    ['an expired token (beyond the 5-minute skew)', (s) => `Bearer ${s.mintActivityToken({ expiresIn: -600 })}`, 'expired'],
    ['a token minted for another serviceUrl', (s) => `Bearer ${s.mintActivityToken({ serviceUrl: 'https://attacker.example/amer/' })}`, 'claims'],
  ];

  it.each(refusedCases)('refuses %s with 401, dispatches nothing and sends nothing', async (_label, authorization, reason) => {
    const before = standIn.activities.length;
    const response = await deliver(teamsMessageActivity(ctx, 'fix BILL-13'), authorization(standIn));

    expect(response.status).toBe(401);
    expect(handled).toEqual([]);
    expect(standIn.activities.length).toBe(before);
    expect(refusals).toEqual(reason === null ? ['missing'] : [reason]);
  });
});
