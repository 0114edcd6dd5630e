import { bearerOf, verifyWithKeySet, type ChatTokenVerdict } from './chat-token.js';
import { RemoteKeySet, type RemoteKeySetOptions } from './remote-key-set.js';

/**
 * Verifies the bearer token Google Chat sends with every event to an HTTP endpoint whose
 * "Authentication audience" is the project number, as Google documents it: a JWT signed (RS256)
 * by `chat@system.gserviceaccount.com` with one of the keys that account publishes (JWKS at
 * `https://www.googleapis.com/service_accounts/v1/jwk/chat@system.gserviceaccount.com`), `iss`
 * that account, `aud` the Cloud project number of the Chat app, and within `iat`/`exp`.
 *
 * The Google Chat adapter's own check fetches the account's X.509 certificates from a URL fixed
 * in its code with the global `fetch`, so it cannot be pointed at a configured key source; the
 * adapter runs with `disableSignatureVerification: true` behind this verifier instead (see
 * docs/chat-platform-adapters.md).
 */

export const GOOGLE_CHAT_ISSUER = 'chat@system.gserviceaccount.com';
export const GOOGLE_CHAT_JWKS_URL = `https://www.googleapis.com/service_accounts/v1/jwk/${GOOGLE_CHAT_ISSUER}`;

export interface GoogleChatTokenOptions {
  /** The Chat app's Google Cloud project number: the token's audience. */
  projectNumber: string;
  /** Default: the Chat service account's public JWKS. */
  jwksUrl?: string;
  /** Default 300 s (Google's client libraries allow the same skew). */
  clockToleranceSeconds?: number;
  keys?: RemoteKeySetOptions;
}

export class GoogleChatTokenVerifier {
  private readonly keySet: RemoteKeySet;

  constructor(private readonly options: GoogleChatTokenOptions) {
    const jwksUrl = options.jwksUrl ?? GOOGLE_CHAT_JWKS_URL;
    this.keySet = new RemoteKeySet(async () => jwksUrl, options.keys);
  }

  /** `authorization` is the request's `Authorization` header. */
  async verify(authorization: string | null | undefined): Promise<ChatTokenVerdict> {
    const { verdict } = await verifyWithKeySet(bearerOf(authorization), this.keySet, {
      issuer: GOOGLE_CHAT_ISSUER,
      audience: this.options.projectNumber,
      clockToleranceSeconds: this.options.clockToleranceSeconds ?? 300,
    });
    return verdict;
  }
}
