import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FindingsBody } from '../support/response-bodies.js';
import { getJson, withApp } from '../support/test-app.js';
import { type TestDatabase, createTestDatabase } from '../support/test-database.js';
import { type TestEnv, createTestEnv } from '../support/test-env.js';
import { SlackStandIn } from '../stand-ins/slack-stand-in.js';

/**
 * Which chat platforms are served: one not configured answers 404, a half-configured one is a
 * blocking finding naming the missing key (and is not served), and a request to a served one is
 * verified before anything is read, without a handler or a platform call for a refused one.
 */
let db: TestDatabase;
let testEnv: TestEnv;
let slack: SlackStandIn;

beforeAll(async () => {
  db = await createTestDatabase('chat_configuration');
  testEnv = createTestEnv('chat-configuration', { databaseUrl: db.url });
  slack = await new SlackStandIn('xoxb-config', 'signing-config').start();
});

afterAll(async () => {
  await slack?.stop();
  testEnv?.remove();
  await db?.drop();
});

/** The findings, and the chat subsystem's among them. */
async function findings(app: Parameters<Parameters<typeof withApp>[1]>[0]) {
  const { body } = await getJson<FindingsBody>(app, '/api/config/findings');
  return { body, chat: body.findings.filter((f) => f.subsystem === 'chat') };
}

const post = (app: Parameters<Parameters<typeof withApp>[1]>[0], platform: string, body = '{"type":"event_callback"}', headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: `/chat/${platform}`, headers: { 'content-type': 'application/json', ...headers }, payload: body });

describe('chat platforms served', () => {
  it('none configured: every chat route answers 404 and nothing is a finding', async () => {
    testEnv.config.write({ queue: { key_prefix: testEnv.keyPrefix } });
    await withApp(testEnv.env, async (app) => {
      for (const platform of ['slack', 'teams', 'gchat', 'irc']) expect((await post(app, platform)).statusCode).toBe(404);
      expect((await findings(app)).chat).toEqual([]);
    });
  });

  it('half configured: a blocking finding names the missing key and the route stays 404', async () => {
    testEnv.config.write({ queue: { key_prefix: testEnv.keyPrefix }, chat: { slack: { bot_token: 'xoxb-only', api_url: slack.apiUrl } } });
    await withApp(testEnv.env, async (app) => {
      expect((await post(app, 'slack')).statusCode).toBe(404);
      const { body, chat } = await findings(app);
      expect(chat).toEqual([expect.objectContaining({ severity: 'blocking', field: 'chat.slack.signing_secret' })]);
      // The bot token is a secret: it appears in no finding.
      expect(JSON.stringify(body)).not.toContain('xoxb-only');
    });
  });

  it('half configured Microsoft Teams: a blocking finding names each missing key, with why, and /chat/teams stays 404', async () => {
    // Only the app password: the app id (the tokens' audience) is missing.
    testEnv.config.write({ queue: { key_prefix: testEnv.keyPrefix }, chat: { teams: { app_password: 'teams-secret-only' } } });
    await withApp(testEnv.env, async (app) => {
      expect((await post(app, 'teams', '{"type":"message"}', { authorization: 'Bearer x' })).statusCode).toBe(404);
      const { body, chat } = await findings(app);
      expect(chat).toEqual([expect.objectContaining({ severity: 'blocking', field: 'chat.teams.app_id' })]);
      expect(chat[0]!.reason).toContain('Microsoft Teams: chat.teams.app_id is not set');
      expect(chat[0]!.reason).toContain('no Teams activity can be verified');
      // The app password is a secret: it appears in no finding.
      expect(JSON.stringify(body)).not.toContain('teams-secret-only');
    });
    // Neither the app id nor the password (only the tenant): both are named, and still 404.
    testEnv.config.write({ queue: { key_prefix: testEnv.keyPrefix }, chat: { teams: { tenant_id: 'tenant-only' } } });
    await withApp(testEnv.env, async (app) => {
      expect((await post(app, 'teams')).statusCode).toBe(404);
      const fields = (await findings(app)).chat.map((f) => [f.severity, f.field]);
      expect(fields).toEqual([['blocking', 'chat.teams.app_id'], ['blocking', 'chat.teams.app_password']]);
    });
  });

  it('half configured Google Chat: a blocking finding names the missing key (or the unusable key file), and /chat/gchat stays 404', async () => {
    // Only the service account key: the project number (the tokens' audience) is missing.
    const key = JSON.stringify({ type: 'service_account', client_email: 'bot@project.iam.gserviceaccount.com', private_key: 'PRIVATE-KEY-NEVER-SHOWN', token_uri: 'http://127.0.0.1:9/token' });
    testEnv.config.write({ queue: { key_prefix: testEnv.keyPrefix }, chat: { gchat: { credentials: key } } });
    await withApp(testEnv.env, async (app) => {
      expect((await post(app, 'gchat', '{"chat":{}}', { authorization: 'Bearer x' })).statusCode).toBe(404);
      const { body, chat } = await findings(app);
      expect(chat).toEqual([expect.objectContaining({ severity: 'blocking', field: 'chat.gchat.project_number' })]);
      expect(chat[0]!.reason).toContain('Google Chat: chat.gchat.project_number is not set');
      expect(chat[0]!.reason).toContain('no Google Chat event can be verified');
      // The key is a secret: it appears in no finding.
      expect(JSON.stringify(body)).not.toContain('PRIVATE-KEY-NEVER-SHOWN');
    });
    // Only the project number: the credentials are missing.
    testEnv.config.write({ queue: { key_prefix: testEnv.keyPrefix }, chat: { gchat: { project_number: '123456789' } } });
    await withApp(testEnv.env, async (app) => {
      expect((await post(app, 'gchat')).statusCode).toBe(404);
      const { chat } = await findings(app);
      expect(chat).toEqual([expect.objectContaining({ severity: 'blocking', field: 'chat.gchat.credentials' })]);
      expect(chat[0]!.reason).toContain('Google Chat: chat.gchat.credentials is not set');
      expect(chat[0]!.reason).toContain('the service cannot reply');
    });
    // Credentials set but not a key file: named as unusable, and still 404.
    testEnv.config.write({ queue: { key_prefix: testEnv.keyPrefix }, chat: { gchat: { project_number: '123456789', credentials: 'not-json-SECRETISH' } } });
    await withApp(testEnv.env, async (app) => {
      expect((await post(app, 'gchat')).statusCode).toBe(404);
      const { body, chat } = await findings(app);
      expect(chat).toEqual([expect.objectContaining({ severity: 'blocking', field: 'chat.gchat.credentials' })]);
      // Set, but unusable: the finding does not claim it is unset.
      expect(chat[0]!.reason).toContain('Google Chat: chat.gchat.credentials is not usable: the service account key is not JSON');
      expect(JSON.stringify(body)).not.toContain('not-json-SECRETISH');
    });
  });

  it('configured without the store: a finding names KVSTORE_URL, and a signed request is 503 store_unavailable (Slack retries)', async () => {
    const noStore = createTestEnv('chat-no-store', { databaseUrl: db.url, store: false, config: { chat: { slack: { bot_token: slack.botToken, signing_secret: slack.signingSecret, api_url: slack.apiUrl } } } });
    try {
      await withApp(noStore.env, async (app) => {
        expect((await findings(app)).chat).toEqual([expect.objectContaining({ severity: 'blocking', field: 'KVSTORE_URL' })]);
        const event = JSON.stringify({ type: 'event_callback', event_id: 'Ev0NOSTORE', event: { type: 'app_mention', user: 'U1', text: 'help', ts: '1.000001', channel: 'C1', team: 'T1' } });
        expect((await post(app, 'slack', event)).statusCode).toBe(401);
        const signed = await post(app, 'slack', event, slack.sign(event));
        expect(signed.statusCode).toBe(503);
        expect(signed.body).toBe('store_unavailable');
      });
    } finally {
      noStore.remove();
    }
  });

  it('configured: an unsigned or malformed request is 401 before anything is read; a url_verification is answered', async () => {
    testEnv.config.write({ queue: { key_prefix: testEnv.keyPrefix }, chat: { slack: { bot_token: slack.botToken, signing_secret: slack.signingSecret, api_url: slack.apiUrl } } });
    await withApp(testEnv.env, async (app) => {
      slack.clearRequests();
      expect((await post(app, 'slack', 'not json at all')).statusCode).toBe(401);
      expect((await post(app, 'slack', '{"type":"event_callback"}', { 'x-slack-request-timestamp': 'soon', 'x-slack-signature': 'v0=00' })).statusCode).toBe(401);
      const challenge = JSON.stringify({ token: 't', challenge: 'challenge-xyz', type: 'url_verification' });
      const verified = await post(app, 'slack', challenge, slack.sign(challenge));
      expect(verified.statusCode).toBe(200);
      expect(verified.json()).toEqual({ challenge: 'challenge-xyz' });
      expect((await post(app, 'teams')).statusCode).toBe(404);
      // Refused requests cost no platform call.
      expect(slack.requests.filter((r) => r.path.startsWith('/api/chat.'))).toEqual([]);
      // The diagnostics list the platform (no secret in it) and probe it with auth.test.
      const { body } = await getJson<{ connections: { name: string; kind: string; target: string; configured: boolean }[] }>(app, '/api/diagnostics/connections');
      expect(body.connections.find((c) => c.kind === 'chat')).toMatchObject({ name: 'chat:slack', target: slack.apiUrl, configured: true });
      expect(JSON.stringify(body)).not.toContain(slack.botToken);
      const probe = await app.inject({ method: 'POST', url: '/api/diagnostics/probe', payload: { name: 'chat:slack' } });
      expect(probe.json()).toMatchObject({ name: 'chat:slack', ok: true, error: null });
      expect(slack.requests.some((r) => r.path === '/api/auth.test')).toBe(true);
    });
  });
});
