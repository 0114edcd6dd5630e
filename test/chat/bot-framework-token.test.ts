import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BotFrameworkClientCredentials } from '../../src/chat/outbound-auth/bot-framework-client-credentials.js';
import { BotFrameworkTokenVerifier } from '../../src/chat/verification/bot-framework-token.js';
import { BotFrameworkStandIn } from '../stand-ins/bot-framework-stand-in.js';

/**
 * Our Bot Framework token verifier (inbound Teams activities) and client-credentials token
 * factory (outbound), each against the Bot Framework stand-in's real endpoints.
 */

const APP_ID = '6b0f3c1e-2a4d-4e8f-9b7c-5d3a1e0f2c4b';
const APP_PASSWORD = 'stand-in-secret-value';

describe('BotFrameworkTokenVerifier', () => {
  let standIn: BotFrameworkStandIn;
  const activity = (): { serviceUrl: string; channelId: string } => ({ serviceUrl: standIn.serviceUrl, channelId: 'msteams' });
  const bearer = (token: string): string => `Bearer ${token}`;

  beforeAll(async () => {
    standIn = await new BotFrameworkStandIn({ appId: APP_ID, appPassword: APP_PASSWORD }).start();
  });
  afterAll(async () => {
    await standIn?.stop();
  });

  it('accepts the channel\'s token and returns its claims; metadata and keys are fetched once for many requests', async () => {
    const verifier = new BotFrameworkTokenVerifier({ appId: APP_ID, openIdMetadataUrl: standIn.openIdMetadataUrl });
    standIn.clearRequests();
    for (let i = 0; i < 3; i++) {
      const verdict = await verifier.verify(bearer(standIn.mintActivityToken()), activity());
      expect(verdict).toMatchObject({ ok: true, claims: { iss: 'https://api.botframework.com', aud: APP_ID, serviceurl: standIn.serviceUrl } });
    }
    expect(standIn.requests.map((r) => r.path)).toEqual(['/v1/.well-known/openidconfiguration', '/v1/.well-known/keys']);
  });

  it('compares the serviceurl claim without its trailing slash or case, and refuses a missing claim', async () => {
    const verifier = new BotFrameworkTokenVerifier({ appId: APP_ID, openIdMetadataUrl: standIn.openIdMetadataUrl });
    const upper = standIn.serviceUrl.replace(/\/$/, '').toUpperCase().replace('HTTP://', 'http://');
    expect((await verifier.verify(bearer(standIn.mintActivityToken()), { serviceUrl: upper, channelId: 'msteams' })).ok).toBe(true);
    expect(await verifier.verify(bearer(standIn.mintActivityToken({ serviceUrl: null })), activity())).toMatchObject({ ok: false, reason: 'claims' });
    expect(await verifier.verify(bearer(standIn.mintActivityToken()), { channelId: 'msteams' })).toMatchObject({ ok: false, reason: 'claims' });
  });

  it('refuses a channel the signing key is not endorsed for, and accepts an activity that names no channel', async () => {
    const verifier = new BotFrameworkTokenVerifier({ appId: APP_ID, openIdMetadataUrl: standIn.openIdMetadataUrl });
    const token = bearer(standIn.mintActivityToken());
    expect(await verifier.verify(token, { serviceUrl: standIn.serviceUrl, channelId: 'slack' })).toMatchObject({ ok: false, reason: 'claims', message: expect.stringContaining("'slack'") });
    expect((await verifier.verify(token, { serviceUrl: standIn.serviceUrl })).ok).toBe(true);
  });

  it('allows Microsoft\'s 5 minutes of clock skew and no more', async () => {
    const verifier = new BotFrameworkTokenVerifier({ appId: APP_ID, openIdMetadataUrl: standIn.openIdMetadataUrl });
    expect((await verifier.verify(bearer(standIn.mintActivityToken({ expiresIn: -120 })), activity())).ok).toBe(true);
    expect(await verifier.verify(bearer(standIn.mintActivityToken({ expiresIn: -400 })), activity())).toMatchObject({ ok: false, reason: 'expired' });
    expect(await verifier.verify(bearer(standIn.mintActivityToken({ notBefore: 600 })), activity())).toMatchObject({ ok: false, reason: 'expired' });
  });

  it('refuses unsigned, HMAC-signed and foreign-key tokens', async () => {
    const verifier = new BotFrameworkTokenVerifier({ appId: APP_ID, openIdMetadataUrl: standIn.openIdMetadataUrl });
    const claims = { iss: 'https://api.botframework.com', aud: APP_ID, serviceurl: standIn.serviceUrl, exp: Math.floor(Date.now() / 1000) + 600 };
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;
    expect(await verifier.verify(bearer(unsigned), activity())).toMatchObject({ ok: false, reason: 'signature' });
    expect(await verifier.verify(bearer(jwt.sign(claims, 'guessable', { algorithm: 'HS256' })), activity())).toMatchObject({ ok: false, reason: 'signature' });
    expect(await verifier.verify(bearer(standIn.mintActivityToken({ foreignKey: true })), activity())).toMatchObject({ ok: false, reason: 'signature' });
    expect(await verifier.verify('Basic dXNlcjpwYXNz', activity())).toMatchObject({ ok: false, reason: 'missing' });
  });

  it('takes the issuer from the OpenID metadata (a sovereign cloud\'s), and refuses the public one there', async () => {
    const gov = await new BotFrameworkStandIn({ appId: APP_ID, appPassword: APP_PASSWORD, issuer: 'https://api.botframework.us' }).start();
    try {
      const verifier = new BotFrameworkTokenVerifier({ appId: APP_ID, openIdMetadataUrl: gov.openIdMetadataUrl });
      const govActivity = { serviceUrl: gov.serviceUrl, channelId: 'msteams' };
      expect((await verifier.verify(bearer(gov.mintActivityToken()), govActivity)).ok).toBe(true);
      expect(await verifier.verify(bearer(gov.mintActivityToken({ issuer: 'https://api.botframework.com' })), govActivity)).toMatchObject({ ok: false, reason: 'issuer' });
    } finally {
      await gov.stop();
    }
  });

  it('an explicitly configured issuer wins over the metadata\'s', async () => {
    const verifier = new BotFrameworkTokenVerifier({ appId: APP_ID, openIdMetadataUrl: standIn.openIdMetadataUrl, issuer: 'https://api.botframework.azure.cn' });
    expect((await verifier.verify(bearer(standIn.mintActivityToken({ issuer: 'https://api.botframework.azure.cn' })), activity())).ok).toBe(true);
    expect(await verifier.verify(bearer(standIn.mintActivityToken()), activity())).toMatchObject({ ok: false, reason: 'issuer' });
  });

  it('follows a key rotation, and says keys_unavailable while the metadata cannot be reached and nothing is held', async () => {
    const verifier = new BotFrameworkTokenVerifier({ appId: APP_ID, openIdMetadataUrl: standIn.openIdMetadataUrl, keys: { minRefreshIntervalMs: 0 } });
    expect((await verifier.verify(bearer(standIn.mintActivityToken()), activity())).ok).toBe(true);
    standIn.rotateSigningKey();
    expect((await verifier.verify(bearer(standIn.mintActivityToken()), activity())).ok).toBe(true);

    const fresh = new BotFrameworkTokenVerifier({ appId: APP_ID, openIdMetadataUrl: standIn.openIdMetadataUrl, keys: { minRefreshIntervalMs: 0 } });
    standIn.setDown('unavailable');
    try {
      expect(await fresh.verify(bearer(standIn.mintActivityToken()), activity())).toMatchObject({ ok: false, reason: 'keys_unavailable' });
      // Keys already held keep serving while the publisher is down.
      expect((await verifier.verify(bearer(standIn.mintActivityToken()), activity())).ok).toBe(true);
    } finally {
      standIn.setDown(null);
    }
    expect((await fresh.verify(bearer(standIn.mintActivityToken()), activity())).ok).toBe(true);
  });

  it('as the adapter\'s webhookVerifier: true for a good request, false (with the reason reported) otherwise, false for a body that is not JSON', async () => {
    const verifier = new BotFrameworkTokenVerifier({ appId: APP_ID, openIdMetadataUrl: standIn.openIdMetadataUrl });
    const reasons: string[] = [];
    const check = verifier.asWebhookVerifier((v) => reasons.push(v.reason));
    const body = JSON.stringify({ type: 'message', ...activity() });
    const request = (authorization: string): Request => new Request('http://127.0.0.1/chat/teams', { method: 'POST', headers: { authorization }, body });
    expect(await check(request(bearer(standIn.mintActivityToken())), body)).toBe(true);
    expect(await check(request(bearer(standIn.mintActivityToken({ audience: 'other' }))), body)).toBe(false);
    expect(await check(request(bearer(standIn.mintActivityToken())), 'not json')).toBe(false);
    expect(reasons).toEqual(['audience', 'claims']);
  });
});

describe('BotFrameworkClientCredentials', () => {
  let standIn: BotFrameworkStandIn;

  beforeAll(async () => {
    standIn = await new BotFrameworkStandIn({ appId: APP_ID, appPassword: APP_PASSWORD }).start();
  });
  afterAll(async () => {
    await standIn?.stop();
  });

  it('obtains a Bot Connector token for the tenant with the client-credentials grant, then serves it from cache', async () => {
    const credentials = new BotFrameworkClientCredentials({ appId: APP_ID, appPassword: APP_PASSWORD, tenantId: standIn.tenantId, tokenUrl: standIn.tokenUrl });
    standIn.clearRequests();
    const token = await credentials.token('https://api.botframework.com/.default');
    expect(jwt.decode(token)).toMatchObject({ aud: 'https://api.botframework.com', appid: APP_ID, tid: standIn.tenantId });
    expect(await credentials.token('https://api.botframework.com/.default')).toBe(token);
    expect(standIn.requests).toHaveLength(1);
    const form = new URLSearchParams(standIn.requests[0]!.body as string);
    expect(standIn.requests[0]!.path).toBe(`/${standIn.tenantId}/oauth2/v2.0/token`);
    expect(Object.fromEntries(form)).toEqual({ grant_type: 'client_credentials', client_id: APP_ID, client_secret: APP_PASSWORD, scope: 'https://api.botframework.com/.default' });
  });

  it('a multi-tenant bot asks the botframework.com tenant; the tenant the SDK names wins', async () => {
    const credentials = new BotFrameworkClientCredentials({ appId: APP_ID, appPassword: APP_PASSWORD, tokenUrl: standIn.tokenUrl });
    standIn.clearRequests();
    await credentials.token('https://api.botframework.com/.default');
    await credentials.token('https://graph.microsoft.com/.default', 'contoso-tenant');
    expect(standIn.requests.map((r) => r.path)).toEqual(['/botframework.com/oauth2/v2.0/token', '/contoso-tenant/oauth2/v2.0/token']);
    expect(credentials.tokenUrlFor('x')).toBe(standIn.tokenUrl.replace('{tenant}', 'x'));
  });

  it('a wrong password fails with Entra\'s error code and without the secret in the message', async () => {
    const credentials = new BotFrameworkClientCredentials({ appId: APP_ID, appPassword: 'wrong-secret-123', tokenUrl: standIn.tokenUrl });
    const error = await credentials.token('https://api.botframework.com/.default').catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/HTTP 401 \(invalid_client\)/);
    expect((error as Error).message).not.toContain('wrong-secret-123');
  });
});
