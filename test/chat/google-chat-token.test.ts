import { generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GoogleServiceAccountTokens } from '../../src/chat/outbound-auth/google-service-account-token.js';
import { GOOGLE_CHAT_JWKS_URL, GoogleChatTokenVerifier } from '../../src/chat/verification/google-chat-token.js';
import { GoogleChatStandIn } from '../stand-ins/google-chat-stand-in.js';

/**
 * Our Google Chat token verifier (inbound events, project-number audience) and service-account
 * token client (outbound), each against the Google Chat stand-in's real endpoints.
 */

const PROJECT_NUMBER = '918273645501';

describe('GoogleChatTokenVerifier', () => {
  let standIn: GoogleChatStandIn;
  const bearer = (token: string): string => `Bearer ${token}`;

  beforeAll(async () => {
    standIn = await new GoogleChatStandIn({ projectNumber: PROJECT_NUMBER }).start();
  });
  afterAll(async () => {
    await standIn?.stop();
  });

  it('defaults to the Chat service account\'s public JWKS', () => {
    expect(GOOGLE_CHAT_JWKS_URL).toBe('https://www.googleapis.com/service_accounts/v1/jwk/chat@system.gserviceaccount.com');
  });

  it('accepts Chat\'s token for the project and fetches the keys once for many requests', async () => {
    const verifier = new GoogleChatTokenVerifier({ projectNumber: PROJECT_NUMBER, jwksUrl: standIn.jwksUrl });
    standIn.clearRequests();
    for (let i = 0; i < 3; i++) {
      expect(await verifier.verify(bearer(standIn.mintChatToken()))).toMatchObject({ ok: true, claims: { iss: 'chat@system.gserviceaccount.com', aud: PROJECT_NUMBER } });
    }
    expect(standIn.requests.map((r) => r.path)).toEqual(['/service_accounts/v1/jwk/chat@system.gserviceaccount.com']);
  });

  it('refuses other projects, other issuers, expired, foreign-key and HMAC tokens', async () => {
    const verifier = new GoogleChatTokenVerifier({ projectNumber: PROJECT_NUMBER, jwksUrl: standIn.jwksUrl });
    expect(await verifier.verify(bearer(standIn.mintChatToken({ audience: '123' })))).toMatchObject({ ok: false, reason: 'audience' });
    expect(await verifier.verify(bearer(standIn.mintChatToken({ issuer: 'https://accounts.google.com' })))).toMatchObject({ ok: false, reason: 'issuer' });
    expect(await verifier.verify(bearer(standIn.mintChatToken({ expiresIn: -400 })))).toMatchObject({ ok: false, reason: 'expired' });
    expect(await verifier.verify(bearer(standIn.mintChatToken({ foreignKey: true })))).toMatchObject({ ok: false, reason: 'signature' });
    const hmac = jwt.sign({ iss: 'chat@system.gserviceaccount.com', aud: PROJECT_NUMBER }, 'x', { algorithm: 'HS256', expiresIn: 600 });
    expect(await verifier.verify(bearer(hmac))).toMatchObject({ ok: false, reason: 'signature' });
    expect(await verifier.verify(undefined)).toMatchObject({ ok: false, reason: 'missing' });
  });

  it('follows a key rotation, and says keys_unavailable while the JWKS cannot be fetched and nothing is held', async () => {
    const verifier = new GoogleChatTokenVerifier({ projectNumber: PROJECT_NUMBER, jwksUrl: standIn.jwksUrl, keys: { minRefreshIntervalMs: 0 } });
    expect((await verifier.verify(bearer(standIn.mintChatToken()))).ok).toBe(true);
    standIn.rotateSigningKey();
    expect((await verifier.verify(bearer(standIn.mintChatToken()))).ok).toBe(true);

    const fresh = new GoogleChatTokenVerifier({ projectNumber: PROJECT_NUMBER, jwksUrl: standIn.jwksUrl });
    standIn.setDown('refuse');
    try {
      expect(await fresh.verify(bearer(standIn.mintChatToken()))).toMatchObject({ ok: false, reason: 'keys_unavailable' });
    } finally {
      standIn.setDown(null);
    }
    expect((await fresh.verify(bearer(standIn.mintChatToken()))).ok).toBe(true);
  });
});

describe('GoogleServiceAccountTokens', () => {
  let standIn: GoogleChatStandIn;

  beforeAll(async () => {
    standIn = await new GoogleChatStandIn({ projectNumber: PROJECT_NUMBER }).start();
  });
  afterAll(async () => {
    await standIn?.stop();
  });

  it('exchanges a signed assertion at the key file\'s token_uri (jwt-bearer grant) for an access token', async () => {
    const tokens = new GoogleServiceAccountTokens({ credentials: standIn.serviceAccount });
    standIn.clearRequests();
    const { access_token, expiry_date } = await tokens.fetchToken();
    expect(access_token).toMatch(/^ya29\./);
    expect(expiry_date).toBeGreaterThan(Date.now() + 3_000_000);
    const form = new URLSearchParams(standIn.requests[0]!.body as string);
    expect(form.get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
    expect(jwt.decode(form.get('assertion')!)).toMatchObject({ iss: standIn.serviceAccount.client_email, aud: standIn.tokenUrl, scope: 'https://www.googleapis.com/auth/chat.bot' });
  });

  it('the auth client asks once and reuses the token until it expires', async () => {
    const client = new GoogleServiceAccountTokens({ credentials: standIn.serviceAccount }).authClient();
    const before = standIn.tokensIssued;
    const first = await client.getAccessToken();
    const second = await client.getAccessToken();
    expect(first.token).toMatch(/^ya29\./);
    expect(second.token).toBe(first.token);
    expect(standIn.tokensIssued).toBe(before + 1);
  });

  it('an assertion signed with a key the account does not hold is refused with Google\'s invalid_grant', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const tokens = new GoogleServiceAccountTokens({ credentials: { ...standIn.serviceAccount, private_key: other } });
    await expect(tokens.fetchToken()).rejects.toThrow(/HTTP 400 \(invalid_grant\)/);
  });

  it('without token_uri the public endpoint is used', () => {
    const { token_uri: _ignored, ...withoutUri } = standIn.serviceAccount;
    expect(new GoogleServiceAccountTokens({ credentials: withoutUri }).tokenUrl).toBe('https://oauth2.googleapis.com/token');
  });
});
