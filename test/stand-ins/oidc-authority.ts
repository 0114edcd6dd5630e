/**
 * A real, local OpenID Connect authority for tests, built on `oidc-provider`.
 *
 * One HTTP listener on 127.0.0.1 serves two provider instances that share the same signing keys:
 *   - `authority`   = http://127.0.0.1:PORT       → issuer `issuer`   (version 1 shape)
 *   - `authorityV2` = http://127.0.0.1:PORT/v2.0  → issuer `issuerV2` (version 2 shape)
 * Each publishes its discovery document and JWKS. `mint()` signs access tokens with the very
 * private keys the providers publish, so they validate through the published JWKS only.
 * `stop()` closes the listener (and every kept-alive connection); `restart()` listens again on
 * the same port.
 *
 * With `dashboard`, the root provider also registers the dashboard as a PUBLIC client (code flow,
 * PKCE required, `offline_access`) and serves a real interactive sign-in a browser completes: a
 * login form naming a user (`/interaction/:uid`), consent granted without asking. Its access
 * tokens are JWTs signed with the published keys, `aud` the requested resource (the server's
 * audience, or `dashboard.tokenAudience` to play a misconfigured registration), and carry the
 * user's roles in the `roles` claim.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { generateKeyPairSync, randomBytes, sign, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { AddressInfo } from 'node:net';
// @ts-expect-error oidc-provider ships no type declarations; the small surface used is typed below.
import ProviderModule from 'oidc-provider';

interface ProviderInstance {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
  interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
  Grant: new (init: { accountId: string; clientId: string }) => GrantInstance;
}
interface InteractionDetails {
  uid: string;
  prompt: { name: string; details: Record<string, unknown> };
  params: Record<string, unknown>;
  session?: { accountId?: string };
  grantId?: string;
}
interface GrantInstance {
  addOIDCScope(scope: string): void;
  addResourceScope(resource: string, scope: string): void;
  save(): Promise<string>;
}
type ProviderConstructor = new (issuer: string, configuration: Record<string, unknown>) => ProviderInstance;
const Provider = ProviderModule as ProviderConstructor;

export type TokenShape = '1.0' | '2.0';

export interface MintOptions {
  /** Sets `ver`, the default issuer and the default audience of that shape (spec rule 7). */
  version?: TokenShape;
  /** Extra or overriding claims. */
  claims?: Record<string, unknown>;
  /** null → no `aud` claim. Default: per version, else `defaultAudience`. */
  aud?: string | string[] | null;
  /** null → no `iss` claim. Default: per version (`issuer` for none/1.0, `issuerV2` for 2.0). */
  iss?: string | null;
  /** Absolute `exp` (seconds since epoch); null → no `exp`. Default: now + 1 h. */
  exp?: number | null;
  sub?: string;
  /** Which published key signs (default the first); ignored when `foreignKey` is set. */
  kid?: string;
  /** Sign with a key the authority does not publish. `kid` then names the header kid (default `foreign`). */
  foreignKey?: boolean;
  /** Override the header's kid (null → no kid in the header). */
  headerKid?: string | null;
}

/** The dashboard's registration (a public client) and the people who can sign in. */
export interface DashboardClientOptions {
  /** Default `pipeline-dashboard`. */
  clientId?: string;
  /** Where the code comes back to, e.g. `http://127.0.0.1:<server port>/signin-callback`. */
  redirectUri: string;
  /** The origin the dashboard calls the discovery and token endpoints from (CORS). Default: the redirect URI's. */
  origin?: string;
  /** User name → roles (the `roles` claim). A name not listed signs in with no roles. */
  users?: Record<string, string[]>;
  /**
   * The `aud` of the access tokens. Default: the resource the app asks for (its audience). Set it
   * to play an authority whose API registration names another audience than the server's.
   */
  tokenAudience?: string;
}

export interface OidcAuthorityOptions {
  /** How many signing keys the authority publishes (kids `key-1`, `key-2`, …). Default 2. */
  keyCount?: number;
  /** Audience for tokens minted without a version. Default `pipeline-service`. */
  defaultAudience?: string;
  /** The API registration's client id (v1 audience `api://<id>`, v2 audience `<id>`). */
  apiClientId?: string;
  /** Register the dashboard as a public client with an interactive login (see the header). */
  dashboard?: DashboardClientOptions;
}

interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  jwk: JsonWebKey;
}

/**
 * Minimal in-memory storage so the provider does not warn about its development adapter. The
 * sign-in needs sessions by `uid` (a code bound to the session checks it is still there) and
 * revocation by grant.
 */
class MemoryAdapter {
  private static readonly store = new Map<string, Record<string, unknown>>();
  private static readonly uids = new Map<string, string>();
  constructor(private readonly name: string) {}
  private key(id: string): string {
    return `${this.name}:${id}`;
  }
  async upsert(id: string, payload: Record<string, unknown>): Promise<void> {
    MemoryAdapter.store.set(this.key(id), payload);
    if (typeof payload['uid'] === 'string') MemoryAdapter.uids.set(`${this.name}:${payload['uid']}`, id);
  }
  async find(id: string): Promise<Record<string, unknown> | undefined> {
    return MemoryAdapter.store.get(this.key(id));
  }
  async findByUserCode(): Promise<undefined> {
    return undefined;
  }
  async findByUid(uid: string): Promise<Record<string, unknown> | undefined> {
    const id = MemoryAdapter.uids.get(`${this.name}:${uid}`);
    return id === undefined ? undefined : MemoryAdapter.store.get(this.key(id));
  }
  async consume(id: string): Promise<void> {
    const found = MemoryAdapter.store.get(this.key(id));
    if (found) found['consumed'] = Math.floor(Date.now() / 1000);
  }
  async destroy(id: string): Promise<void> {
    MemoryAdapter.store.delete(this.key(id));
  }
  async revokeByGrantId(grantId: string): Promise<void> {
    for (const [key, payload] of MemoryAdapter.store) {
      if (key.startsWith(`${this.name}:`) && payload['grantId'] === grantId) MemoryAdapter.store.delete(key);
    }
  }
}

const V2_PATH = '/v2.0';
const INTERACTION_PATH = '/interaction/';
const DASHBOARD_SCOPES = 'openid profile offline_access';

export class OidcAuthority {
  /** Requests served per path, to observe caching (e.g. `/jwks`, `/v2.0/jwks`). */
  readonly requests = new Map<string, number>();
  readonly apiClientId: string;
  readonly defaultAudience: string;
  private server: Server | null = null;
  /** The root (version-1) provider, which serves the dashboard's sign-in. */
  private root: ProviderInstance | null = null;
  private readonly dashboard: DashboardClientOptions | null;

  private constructor(
    readonly port: number,
    private readonly keys: SigningKey[],
    options: OidcAuthorityOptions,
    server: Server,
  ) {
    this.dashboard = options.dashboard ?? null;
    this.apiClientId = options.apiClientId ?? '6f1c1a52-5c4e-4b8e-9a1e-3c0d7b2a9f10';
    this.defaultAudience = options.defaultAudience ?? 'pipeline-service';
    this.serve(server);
  }

  static async start(options: OidcAuthorityOptions = {}): Promise<OidcAuthority> {
    const keys = Array.from({ length: options.keyCount ?? 2 }, (_, i) => newKey(`key-${i + 1}`));
    const server = createServer();
    await listen(server, 0);
    const port = (server.address() as AddressInfo).port;
    return new OidcAuthority(port, keys, options, server);
  }

  /** Discovery base of the version-1 shape (its discovery publishes `issuer`). */
  get authority(): string {
    return `http://127.0.0.1:${this.port}`;
  }
  /** Discovery base of the version-2 shape (authority with the v2 suffix). */
  get authorityV2(): string {
    return `${this.authority}${V2_PATH}`;
  }
  get issuer(): string {
    return this.authority;
  }
  get issuerV2(): string {
    return this.authorityV2;
  }
  /** Audience of the API registration in each shape. */
  audienceOf(version: TokenShape): string {
    return version === '1.0' ? `api://${this.apiClientId}` : this.apiClientId;
  }
  /** The dashboard's client id (with the `dashboard` option). */
  get dashboardClientId(): string {
    return this.dashboard?.clientId ?? 'pipeline-dashboard';
  }
  get kids(): string[] {
    return this.keys.map((k) => k.kid);
  }
  get running(): boolean {
    return this.server !== null;
  }
  jwksRequests(): number {
    return (this.requests.get('/jwks') ?? 0) + (this.requests.get(`${V2_PATH}/jwks`) ?? 0);
  }

  /** Signs an access token (RS256) with one of the published keys, or a foreign one. */
  mint(options: MintOptions = {}): string {
    const now = Math.floor(Date.now() / 1000);
    const version = options.version;
    const key = options.foreignKey ? newKey(options.kid ?? 'foreign') : this.keyFor(options.kid);
    const kid = options.headerKid === undefined ? key.kid : options.headerKid;
    const header: Record<string, unknown> = { alg: 'RS256', typ: 'JWT', ...(kid === null ? {} : { kid }) };
    const iss = options.iss === undefined ? (version === '2.0' ? this.issuerV2 : this.issuer) : options.iss;
    const aud = options.aud === undefined ? (version ? this.audienceOf(version) : this.defaultAudience) : options.aud;
    const exp = options.exp === undefined ? now + 3600 : options.exp;
    const sub = options.sub ?? 'user-123';
    const payload: Record<string, unknown> = {
      sub,
      iat: now,
      nbf: now,
      ...(iss === null ? {} : { iss }),
      ...(aud === null ? {} : { aud }),
      ...(exp === null ? {} : { exp }),
      ...(version === '1.0' ? { ver: '1.0', upn: `${sub}@example.test` } : {}),
      ...(version === '2.0' ? { ver: '2.0', preferred_username: `${sub}@example.test` } : {}),
      ...options.claims,
    };
    const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}`;
    return `${input}.${sign('sha256', Buffer.from(input), key.privateKey).toString('base64url')}`;
  }

  /** Closes the listener and drops every open connection: the authority is unreachable. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  /** Listens again on the same port with the same keys and issuers. */
  async restart(): Promise<void> {
    if (this.server) return;
    const server = createServer();
    await listen(server, this.port);
    this.serve(server);
  }

  /** Two providers (v1 at the root, v2 under /v2.0) on one listener, sharing the signing keys. */
  private serve(server: Server): void {
    const config = (): Record<string, unknown> => ({
      jwks: { keys: this.keys.map((k) => k.jwk) },
      adapter: MemoryAdapter,
      features: { devInteractions: { enabled: false } },
    });
    const root = new Provider(this.authority, this.dashboard ? this.dashboardConfig(this.dashboard, config()) : config());
    const v1 = root.callback();
    const v2 = new Provider(this.authorityV2, config()).callback();
    this.root = root;
    this.server = server;
    server.on('request', (req: IncomingMessage & { originalUrl?: string }, res: ServerResponse) => {
      const url = req.url ?? '/';
      const path = url.split('?')[0] ?? url;
      this.requests.set(path, (this.requests.get(path) ?? 0) + 1);
      if (this.dashboard && path.startsWith(INTERACTION_PATH)) {
        this.interaction(req, res).catch((error: unknown) => {
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(`interaction failed: ${(error as Error).message}`);
        });
        return;
      }
      if (url === V2_PATH || url.startsWith(`${V2_PATH}/`) || url.startsWith(`${V2_PATH}?`)) {
        // oidc-provider derives its mount path from originalUrl minus the rewritten url.
        req.originalUrl = url;
        req.url = url.slice(V2_PATH.length) || '/';
        v2(req, res);
        return;
      }
      v1(req, res);
    });
  }

  /** The root provider's configuration with the dashboard's client, resource server and accounts. */
  private dashboardConfig(dashboard: DashboardClientOptions, base: Record<string, unknown>): Record<string, unknown> {
    const origin = dashboard.origin ?? new URL(dashboard.redirectUri).origin;
    const users = dashboard.users ?? {};
    return {
      ...base,
      clients: [{
        client_id: this.dashboardClientId,
        redirect_uris: [dashboard.redirectUri],
        post_logout_redirect_uris: [`${origin}/`],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        scope: DASHBOARD_SCOPES,
      }],
      scopes: DASHBOARD_SCOPES.split(' '),
      claims: { openid: ['sub'], profile: ['name', 'preferred_username'] },
      pkce: { required: () => true },
      ttl: { Interaction: 600, Session: 3600, Grant: 3600, AuthorizationCode: 60, AccessToken: 3600, IdToken: 3600, RefreshToken: 86_400 },
      // Signed cookies keep the interaction's state between the form and the provider.
      cookies: { keys: [randomBytes(32).toString('hex')] },
      // The app calls discovery and the token endpoint from its own origin.
      clientBasedCORS: (_ctx: unknown, requestOrigin: string) => requestOrigin === origin,
      findAccount: (_ctx: unknown, id: string) => ({
        accountId: id,
        claims: () => ({ sub: id, name: id, preferred_username: id }),
      }),
      extraTokenClaims: (_ctx: unknown, token: { accountId?: string }) =>
        token.accountId === undefined ? undefined : { roles: users[token.accountId] ?? [] },
      features: {
        devInteractions: { enabled: false },
        resourceIndicators: {
          enabled: true,
          // The app names its audience as `resource` when it asks for the code; the token request
          // (oidc-client-ts sends none there) gets the resource granted with the code.
          defaultResource: (_ctx: unknown, _client: unknown, oneOf?: string[]) => oneOf,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx: unknown, resource: string) => ({
            scope: 'dashboard',
            audience: dashboard.tokenAudience ?? resource,
            accessTokenFormat: 'jwt',
            accessTokenTTL: 3600,
            jwt: { sign: { alg: 'RS256' } },
          }),
        },
      },
    };
  }

  /**
   * The interactive part of the sign-in. GET shows the login form (a person names a user);
   * POST signs that user in and grants what the app asked for; a consent prompt alone (a
   * returning user) is granted at once.
   */
  private async interaction(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const provider = this.root!;
    const details = await provider.interactionDetails(req, res);
    const { uid, prompt, params } = details;
    if (req.method === 'POST') {
      const form = new URLSearchParams(await readBody(req));
      const user = (form.get('user') ?? '').trim();
      if (user === '') {
        res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' });
        res.end(loginPage(uid, 'Name a user.'));
        return;
      }
      const grantId = await this.grantFor(user, params);
      await provider.interactionFinished(req, res, { login: { accountId: user }, consent: { grantId } }, { mergeWithLastSubmission: false });
      return;
    }
    if (prompt.name === 'login') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(loginPage(uid, null));
      return;
    }
    const accountId = details.session?.accountId;
    if (!accountId) throw new Error(`prompt ${prompt.name} without a signed-in account`);
    const grantId = await this.grantFor(accountId, params);
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }

  /** Grants the scopes and the resource the authorization request named. */
  private async grantFor(accountId: string, params: Record<string, unknown>): Promise<string> {
    const grant = new this.root!.Grant({ accountId, clientId: String(params['client_id']) });
    grant.addOIDCScope(String(params['scope'] ?? 'openid'));
    const resource = params['resource'];
    for (const r of Array.isArray(resource) ? resource : resource ? [resource] : []) grant.addResourceScope(String(r), 'dashboard');
    return grant.save();
  }

  private keyFor(kid: string | undefined): SigningKey {
    const key = kid === undefined ? this.keys[0] : this.keys.find((k) => k.kid === kid);
    if (!key) throw new Error(`the authority publishes no key '${kid ?? ''}'`);
    return key;
  }
}

function newKey(kid: string): SigningKey {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid, privateKey, jwk: { ...privateKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' } };
}

function b64url(text: string): string {
  return Buffer.from(text).toString('base64url');
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

/** The login form: one field naming the user, one button. */
function loginPage(uid: string, error: string | null): string {
  const safeUid = encodeURIComponent(uid);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in to the test authority</title></head>
<body><main><h1>Sign in</h1>${error ? `<p role="alert">${error}</p>` : ''}
<form method="post" action="${INTERACTION_PATH}${safeUid}">
<label>User <input name="user" autocomplete="username" autofocus></label>
<button type="submit">Sign in</button>
</form></main></body></html>`;
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}
