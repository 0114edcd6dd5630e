import { ChatTokenRefusal, bearerOf, refused, verifyWithKeySet, type ChatTokenVerdict } from './chat-token.js';
import { RemoteKeySet, fetchJson, type RemoteKeySetOptions } from './remote-key-set.js';

/**
 * Verifies the Bot Framework token on an inbound Teams activity, as Microsoft documents for
 * "connector to bot" requests: a Bearer JWT signed (RS256) by a key of the keys document that the
 * OpenID metadata names (`jwks_uri`); `iss` the issuer that metadata publishes
 * (`https://api.botframework.com` in the public cloud, so a sovereign cloud's metadata URL brings
 * its own issuer); `aud` the bot's Microsoft App ID; within `nbf`/`exp` with 5 minutes of
 * tolerance; its `serviceurl` claim equal to the activity's `serviceUrl` (replies, which carry
 * the bot's own token, go to that URL: a token minted for another service URL must not steer
 * them); and, when the activity names its channel, the key's `endorsements` include it.
 *
 * Used as the Teams adapter's `webhookVerifier`: the Teams SDK's own validator cannot be pointed
 * at a configured metadata URL through the adapter (see docs/chat-platform-adapters.md).
 */

export const BOT_FRAMEWORK_OPENID_METADATA_URL = 'https://login.botframework.com/v1/.well-known/openidconfiguration';
export const BOT_FRAMEWORK_TOKEN_ISSUER = 'https://api.botframework.com';

export interface BotFrameworkTokenOptions {
  /** The bot's Microsoft App ID: the token's audience. */
  appId: string;
  /** Default: the public cloud's. */
  openIdMetadataUrl?: string;
  /** Default: the `issuer` the OpenID metadata publishes (`https://api.botframework.com` when it publishes none). */
  issuer?: string;
  /** Default 300 s, Microsoft's documented skew. */
  clockToleranceSeconds?: number;
  keys?: RemoteKeySetOptions;
}

/** The fields of an activity the token is checked against. */
export interface ActivityIdentity {
  serviceUrl?: unknown;
  channelId?: unknown;
}

export class BotFrameworkTokenVerifier {
  private readonly keySet: RemoteKeySet;
  private readonly metadataUrl: string;
  /** The metadata's `issuer`, read with the keys. */
  private publishedIssuer = BOT_FRAMEWORK_TOKEN_ISSUER;

  constructor(private readonly options: BotFrameworkTokenOptions) {
    this.metadataUrl = options.openIdMetadataUrl ?? BOT_FRAMEWORK_OPENID_METADATA_URL;
    const timeoutMs = options.keys?.timeoutMs ?? 5_000;
    // The metadata is read on every key refresh, so a moved jwks_uri is followed.
    this.keySet = new RemoteKeySet(async () => {
      const metadata = (await fetchJson(this.metadataUrl, timeoutMs)) as { jwks_uri?: unknown; issuer?: unknown };
      if (typeof metadata.jwks_uri !== 'string') throw new Error(`${this.metadataUrl} names no jwks_uri`);
      this.publishedIssuer = typeof metadata.issuer === 'string' && metadata.issuer !== '' ? metadata.issuer : BOT_FRAMEWORK_TOKEN_ISSUER;
      return metadata.jwks_uri;
    }, options.keys);
  }

  /** `authorization` is the request's header; `activity` its parsed body. */
  async verify(authorization: string | null | undefined, activity: ActivityIdentity): Promise<ChatTokenVerdict> {
    const { verdict, key } = await verifyWithKeySet(bearerOf(authorization), this.keySet, {
      issuer: () => this.options.issuer ?? this.publishedIssuer,
      audience: this.options.appId,
      clockToleranceSeconds: this.options.clockToleranceSeconds ?? 300,
    });
    if (!verdict.ok) return verdict;
    const claimed = verdict.claims['serviceurl'];
    const serviceUrl = activity.serviceUrl;
    if (typeof claimed !== 'string' || typeof serviceUrl !== 'string' || normalize(claimed) !== normalize(serviceUrl)) {
      return refused(ChatTokenRefusal.Claims, 'the token\'s serviceurl claim does not match the activity\'s serviceUrl');
    }
    const channelId = typeof activity.channelId === 'string' ? activity.channelId : '';
    if (channelId !== '' && !key?.endorsements?.includes(channelId)) {
      return refused(ChatTokenRefusal.Claims, `the signing key is not endorsed for channel '${channelId}'`);
    }
    return verdict;
  }

  /**
   * The adapter's `webhookVerifier`: reads the header and the raw body the adapter hands over;
   * a refusal is false (the adapter answers 401). `onRefused` lets the caller log why.
   */
  asWebhookVerifier(onRefused?: (verdict: Extract<ChatTokenVerdict, { ok: false }>) => void): (request: Request, body: string) => Promise<boolean> {
    return async (request, body) => {
      let activity: ActivityIdentity;
      try {
        activity = JSON.parse(body) as ActivityIdentity;
      } catch {
        activity = {};
      }
      const verdict = await this.verify(request.headers.get('authorization'), activity ?? {});
      if (!verdict.ok) onRefused?.(verdict);
      return verdict.ok;
    };
  }
}

function normalize(url: string): string {
  return url.replace(/\/+$/, '').toLowerCase();
}
