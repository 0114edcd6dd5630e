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
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { generateKeyPairSync, sign, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { AddressInfo } from 'node:net';
// @ts-expect-error oidc-provider ships no type declarations; the small surface used is typed below.
import ProviderModule from 'oidc-provider';

interface ProviderInstance {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
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

export interface OidcAuthorityOptions {
  /** How many signing keys the authority publishes (kids `key-1`, `key-2`, …). Default 2. */
  keyCount?: number;
  /** Audience for tokens minted without a version. Default `pipeline-service`. */
  defaultAudience?: string;
  /** The API registration's client id (v1 audience `api://<id>`, v2 audience `<id>`). */
  apiClientId?: string;
}

interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  jwk: JsonWebKey;
}

/** Minimal in-memory storage so the provider does not warn about its development adapter. */
class MemoryAdapter {
  private static readonly store = new Map<string, Record<string, unknown>>();
  constructor(private readonly name: string) {}
  private key(id: string): string {
    return `${this.name}:${id}`;
  }
  async upsert(id: string, payload: Record<string, unknown>): Promise<void> {
    MemoryAdapter.store.set(this.key(id), payload);
  }
  async find(id: string): Promise<Record<string, unknown> | undefined> {
    return MemoryAdapter.store.get(this.key(id));
  }
  async findByUserCode(): Promise<undefined> {
    return undefined;
  }
  async findByUid(): Promise<undefined> {
    return undefined;
  }
  async consume(id: string): Promise<void> {
    const found = MemoryAdapter.store.get(this.key(id));
    if (found) found['consumed'] = Math.floor(Date.now() / 1000);
  }
  async destroy(id: string): Promise<void> {
    MemoryAdapter.store.delete(this.key(id));
  }
  async revokeByGrantId(): Promise<void> {}
}

const V2_PATH = '/v2.0';

export class OidcAuthority {
  /** Requests served per path, to observe caching (e.g. `/jwks`, `/v2.0/jwks`). */
  readonly requests = new Map<string, number>();
  readonly apiClientId: string;
  readonly defaultAudience: string;
  private server: Server | null = null;

  private constructor(
    readonly port: number,
    private readonly keys: SigningKey[],
    options: OidcAuthorityOptions,
    server: Server,
  ) {
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
    const v1 = new Provider(this.authority, config()).callback();
    const v2 = new Provider(this.authorityV2, config()).callback();
    this.server = server;
    server.on('request', (req: IncomingMessage & { originalUrl?: string }, res: ServerResponse) => {
      const url = req.url ?? '/';
      const path = url.split('?')[0] ?? url;
      this.requests.set(path, (this.requests.get(path) ?? 0) + 1);
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

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}
