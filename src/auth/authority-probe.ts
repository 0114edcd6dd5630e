import type { JsonWebKey } from 'node:crypto';
import { finding, FindingSubsystem, type Finding } from '../findings/finding.js';

/**
 * Probes the token authority (spec Authentication rule 6): fetches the OpenID Connect discovery
 * document and the JWKS it names, each with a timeout, and remembers the outcome. The last
 * discovered issuer and jwks_uri are kept while the authority is down, so keys already cached
 * keep validating. Scheduling (startup + every 30 s) belongs to the caller: call `probeOnce()`.
 */

export interface AuthorityDiscovery {
  /** `issuer` of the discovery document: the only issuer tokens may carry. */
  issuer: string;
  jwksUri: string;
}

/** What the token validator needs from the authority. */
export interface DiscoverySource {
  /** Last discovered values (kept while the authority is unreachable), or null if never reached. */
  current(): AuthorityDiscovery | null;
  /** `current()`, probing first (throttled, de-duplicated) when nothing was discovered yet. */
  ensure(): Promise<AuthorityDiscovery | null>;
  /** Outcome of the last probe. */
  state(): AuthorityState;
  /**
   * A signing key of the JWKS the last successful probe fetched (by `kid`; with no `kid`, the
   * only key). Lets the validator serve a published key when its own JWKS rate limit is spent.
   */
  publishedKey(kid: string | null): JsonWebKey | null;
}

export type AuthorityState = 'unknown' | 'reachable' | 'unreachable';

export interface AuthorityStatus {
  authority: string;
  state: AuthorityState;
  /** Why the last probe failed; null when reachable or never probed. */
  cause: string | null;
  lastChecked: Date | null;
  lastReachable: Date | null;
  discovery: AuthorityDiscovery | null;
}

export interface AuthorityProbeOptions {
  /** OIDC discovery base (`auth.authority`). */
  authority: string;
  /** `auth.enforce`: the finding is blocking when on, advisory when off. */
  enforce: boolean;
  /** Per request (discovery, then JWKS). Default 10 s, the spec's probe timeout. */
  timeoutMs?: number;
  /** Least time between probes triggered by `ensure()` while nothing is discovered. Default 5 s. */
  minRetryMs?: number;
  now?: () => Date;
}

export const AUTHORITY_PROBE_TIMEOUT_MS = 10_000;
export const AUTHORITY_PROBE_INTERVAL_MS = 30_000;

export function discoveryUrlOf(authority: string): string {
  return `${authority.replace(/\/+$/, '')}/.well-known/openid-configuration`;
}

export class AuthorityProbe implements DiscoverySource {
  private readonly timeoutMs: number;
  private readonly minRetryMs: number;
  private readonly now: () => Date;
  private snapshot: AuthorityStatus;
  private inFlight: Promise<AuthorityStatus> | null = null;
  private keys: JsonWebKey[] = [];

  constructor(private readonly options: AuthorityProbeOptions) {
    this.timeoutMs = options.timeoutMs ?? AUTHORITY_PROBE_TIMEOUT_MS;
    this.minRetryMs = options.minRetryMs ?? 5_000;
    this.now = options.now ?? (() => new Date());
    this.snapshot = { authority: options.authority, state: 'unknown', cause: null, lastChecked: null, lastReachable: null, discovery: null };
  }

  get authority(): string {
    return this.options.authority;
  }

  status(): AuthorityStatus {
    return { ...this.snapshot };
  }

  state(): AuthorityState {
    return this.snapshot.state;
  }

  publishedKey(kid: string | null): JsonWebKey | null {
    const signing = this.keys.filter((k) => k['use'] === undefined || k['use'] === 'sig');
    if (kid === null) return signing.length === 1 ? (signing[0] ?? null) : null;
    return signing.find((k) => k['kid'] === kid) ?? null;
  }

  current(): AuthorityDiscovery | null {
    return this.snapshot.discovery;
  }

  async ensure(): Promise<AuthorityDiscovery | null> {
    if (this.snapshot.discovery) return this.snapshot.discovery;
    if (this.inFlight) return (await this.inFlight).discovery;
    const last = this.snapshot.lastChecked?.getTime();
    if (last === undefined || this.now().getTime() - last >= this.minRetryMs) await this.probeOnce();
    return this.snapshot.discovery;
  }

  /** One probe; concurrent calls share it. Never throws. */
  probeOnce(): Promise<AuthorityStatus> {
    this.inFlight ??= this.run().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  /** The `auth` finding while the authority is unreachable; null otherwise. */
  finding(): Finding | null {
    if (this.snapshot.state !== 'unreachable') return null;
    return finding(
      FindingSubsystem.Auth,
      this.options.enforce ? 'blocking' : 'advisory',
      `token authority ${this.options.authority} is unreachable: ${this.snapshot.cause ?? 'unknown cause'}; ` +
        'tokens whose signing keys are not cached cannot be validated',
      { field: 'auth.authority' },
    );
  }

  private async run(): Promise<AuthorityStatus> {
    let next: Pick<AuthorityStatus, 'state' | 'cause' | 'discovery'>;
    try {
      const discovery = await this.discover();
      this.keys = await this.fetchJwks(discovery.jwksUri);
      next = { state: 'reachable', cause: null, discovery };
    } catch (err) {
      next = { state: 'unreachable', cause: describeError(err, this.timeoutMs), discovery: this.snapshot.discovery };
    }
    const checked = this.now();
    this.snapshot = {
      ...this.snapshot,
      ...next,
      lastChecked: checked,
      lastReachable: next.state === 'reachable' ? checked : this.snapshot.lastReachable,
    };
    return this.status();
  }

  private async discover(): Promise<AuthorityDiscovery> {
    const url = discoveryUrlOf(this.options.authority);
    const doc = await this.getJson(url, 'discovery document');
    const issuer = doc['issuer'];
    const jwksUri = doc['jwks_uri'];
    if (typeof issuer !== 'string' || issuer === '') throw new ProbeError(`discovery document ${url} has no issuer`);
    if (typeof jwksUri !== 'string' || jwksUri === '') throw new ProbeError(`discovery document ${url} has no jwks_uri`);
    return { issuer, jwksUri };
  }

  private async fetchJwks(url: string): Promise<JsonWebKey[]> {
    const doc = await this.getJson(url, 'JWKS');
    const keys: unknown = doc['keys'];
    if (!Array.isArray(keys) || keys.length === 0) throw new ProbeError(`JWKS ${url} holds no keys`);
    return keys.filter((k): k is JsonWebKey => typeof k === 'object' && k !== null && !Array.isArray(k));
  }

  private async getJson(url: string, what: string): Promise<Record<string, unknown>> {
    const get = () => fetch(url, { signal: AbortSignal.timeout(this.timeoutMs), headers: { accept: 'application/json' } });
    // A kept-alive socket the authority closed fails as UND_ERR_SOCKET: retry once on a fresh one.
    const res = await get().catch((err: unknown) => {
      if ((err as { cause?: { code?: unknown } })?.cause?.code === 'UND_ERR_SOCKET') return get();
      throw err;
    });
    if (!res.ok) {
      await res.body?.cancel();
      throw new ProbeError(`${what} ${url} answered HTTP ${res.status}`);
    }
    let body: unknown;
    try {
      body = await res.json();
    } catch {
      throw new ProbeError(`${what} ${url} is not JSON`);
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ProbeError(`${what} ${url} is not a JSON object`);
    return body as Record<string, unknown>;
  }
}

class ProbeError extends Error {}

function describeError(err: unknown, timeoutMs: number): string {
  if (err instanceof ProbeError) return err.message;
  if (err instanceof Error) {
    if (err.name === 'TimeoutError' || err.name === 'AbortError') {
      return `no answer within ${Math.round(timeoutMs / 1000)} s (state unknown)`;
    }
    const cause = (err as Error & { cause?: unknown }).cause;
    if (cause instanceof Error) {
      const code = (cause as Error & { code?: unknown }).code;
      return typeof code === 'string' ? `${code} (${cause.message})` : cause.message;
    }
    return err.message;
  }
  return String(err);
}
