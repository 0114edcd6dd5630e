/**
 * The bot's own access token for the Bot Connector API (replies, edits), obtained with the OAuth
 * 2.0 client-credentials grant from Microsoft Entra ID: `POST <token_url>` with the app id, its
 * password (client secret) and the scope the Teams SDK asks for
 * (`https://api.botframework.com/.default`). Handed to the Teams adapter as its `token` factory,
 * because the SDK's own path (MSAL, authority `<loginEndpoint>/<tenant>`) cannot be pointed at a
 * configured token URL through the adapter (see docs/chat-platform-adapters.md).
 *
 * Tokens are cached per tenant and scope until five minutes before they expire; concurrent callers
 * share one request. Errors name the endpoint and Entra's error code, never the secret.
 */

/** `{tenant}` is replaced by the tenant the token is for. */
export const BOT_FRAMEWORK_TOKEN_URL = 'https://login.microsoftonline.com/{tenant}/oauth2/v2.0/token';
/** Multi-tenant bots obtain Bot Connector tokens from this tenant. */
export const BOT_FRAMEWORK_DEFAULT_TENANT = 'botframework.com';

export interface BotFrameworkCredentialsOptions {
  appId: string;
  appPassword: string;
  /** Single-tenant bots: their tenant; null/undefined → `botframework.com`. */
  tenantId?: string | null;
  /** Default the public cloud's; a URL without `{tenant}` is used as is. */
  tokenUrl?: string | null;
  /** Per request. Default 10 s. */
  timeoutMs?: number;
}

export class BotFrameworkTokenError extends Error {}

interface CachedToken {
  token: string;
  refreshAt: number;
}

const EARLY_REFRESH_MS = 5 * 60_000;

export class BotFrameworkClientCredentials {
  private readonly cache = new Map<string, CachedToken>();
  private readonly pending = new Map<string, Promise<string>>();

  constructor(private readonly options: BotFrameworkCredentialsOptions) {}

  /** The endpoint a token for `tenant` is requested from. */
  tokenUrlFor(tenant: string): string {
    return (this.options.tokenUrl || BOT_FRAMEWORK_TOKEN_URL).replace('{tenant}', encodeURIComponent(tenant));
  }

  async token(scope: string | string[], tenantId?: string): Promise<string> {
    const scopes = Array.isArray(scope) ? scope.join(' ') : scope;
    const tenant = tenantId || this.options.tenantId || BOT_FRAMEWORK_DEFAULT_TENANT;
    const key = `${tenant} ${scopes}`;
    const cached = this.cache.get(key);
    if (cached && cached.refreshAt > Date.now()) return cached.token;
    let request = this.pending.get(key);
    if (!request) {
      request = this.request(tenant, scopes, key).finally(() => this.pending.delete(key));
      this.pending.set(key, request);
    }
    return request;
  }

  /** The Teams adapter's `token` option. */
  asTokenFactory(): (scope: string | string[], tenantId?: string) => Promise<string> {
    return (scope, tenantId) => this.token(scope, tenantId);
  }

  private async request(tenant: string, scope: string, key: string): Promise<string> {
    const url = this.tokenUrlFor(tenant);
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: this.options.appId,
      client_secret: this.options.appPassword,
      scope,
    });
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form.toString(),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      });
    } catch (error) {
      throw new BotFrameworkTokenError(`token request to ${url} failed: ${(error as Error).message}`);
    }
    const body = (await response.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown; error?: unknown };
    if (!response.ok || typeof body.access_token !== 'string') {
      const code = typeof body.error === 'string' ? ` (${body.error})` : '';
      throw new BotFrameworkTokenError(`token request to ${url} answered HTTP ${response.status}${code}`);
    }
    const lifetimeMs = (Number(body.expires_in) || 3600) * 1000;
    this.cache.set(key, { token: body.access_token, refreshAt: Date.now() + Math.max(lifetimeMs - EARLY_REFRESH_MS, lifetimeMs / 2) });
    return body.access_token;
  }
}
