import { randomUUID } from 'node:crypto';
import { OAuth2Client } from 'google-auth-library';
import jwt from 'jsonwebtoken';

/**
 * The Chat app's access token for the Google Chat API, obtained as Google documents for service
 * accounts: a JWT assertion signed with the account's private key (`iss` the account's email,
 * `scope`, `aud` the token endpoint, one hour) exchanged at the token endpoint with the
 * `urn:ietf:params:oauth:grant-type:jwt-bearer` grant. The endpoint is the key file's own
 * `token_uri` (`https://oauth2.googleapis.com/token` in Google's key files), so a sovereign or
 * local stand-in key file brings its endpoint with it.
 *
 * Why not the adapter's `credentials` option: google-auth-library's `JWT` client (through gtoken)
 * posts to `https://oauth2.googleapis.com/token`, fixed in its code, whatever the key file says.
 * The adapter accepts a custom `auth` client instead; `authClient()` is a plain `OAuth2Client`
 * whose documented `refreshHandler` calls this class, so the googleapis client keeps its own
 * token caching, and with `forceRefreshOnFailure` replaces a refused token once and retries.
 */

export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

/** Google's scopes for a Chat app acting as itself. */
export const GOOGLE_CHAT_BOT_SCOPES = ['https://www.googleapis.com/auth/chat.bot'];

/** The fields of a service account key file (JSON) this needs. */
export interface ServiceAccountKey {
  client_email: string;
  private_key: string;
  private_key_id?: string;
  token_uri?: string;
}

export interface ServiceAccountTokenOptions {
  credentials: ServiceAccountKey;
  /** Default `chat.bot`. */
  scopes?: string[];
  /** Per request. Default 10 s. */
  timeoutMs?: number;
}

export class GoogleTokenError extends Error {}

export class GoogleServiceAccountTokens {
  constructor(private readonly options: ServiceAccountTokenOptions) {}

  get tokenUrl(): string {
    return this.options.credentials.token_uri || GOOGLE_TOKEN_URL;
  }

  /** One fresh token (no cache: `authClient()` caches until `expiry_date`). */
  async fetchToken(): Promise<{ access_token: string; expiry_date: number }> {
    const { credentials } = this.options;
    const now = Math.floor(Date.now() / 1000);
    const assertion = jwt.sign(
      { iss: credentials.client_email, scope: (this.options.scopes ?? GOOGLE_CHAT_BOT_SCOPES).join(' '), aud: this.tokenUrl, iat: now, exp: now + 3600, jti: randomUUID() },
      credentials.private_key,
      { algorithm: 'RS256', ...(credentials.private_key_id ? { keyid: credentials.private_key_id } : {}) },
    );
    const form = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion });
    let response: Response;
    try {
      response = await fetch(this.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form.toString(),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      });
    } catch (error) {
      throw new GoogleTokenError(`token request to ${this.tokenUrl} failed: ${(error as Error).message}`);
    }
    const body = (await response.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown; error?: unknown };
    if (!response.ok || typeof body.access_token !== 'string') {
      const code = typeof body.error === 'string' ? ` (${body.error})` : '';
      throw new GoogleTokenError(`token request to ${this.tokenUrl} answered HTTP ${response.status}${code}`);
    }
    return { access_token: body.access_token, expiry_date: Date.now() + (Number(body.expires_in) || 3600) * 1000 };
  }

  /** The Google Chat adapter's `auth` option. */
  authClient(): OAuth2Client {
    // forceRefreshOnFailure: a token the API refuses (401/403) is replaced once and the call retried.
    const client = new OAuth2Client({ forceRefreshOnFailure: true });
    client.refreshHandler = () => this.fetchToken();
    return client;
  }
}
