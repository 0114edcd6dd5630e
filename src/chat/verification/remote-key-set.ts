import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';

/**
 * A published JSON Web Key Set fetched over HTTP and cached, for the chat platforms' inbound
 * tokens. Not `jwks-rsa`: the Bot Framework's keys carry `endorsements` (the channels a key may
 * sign for), which a verifier must read and `jwks-rsa` drops.
 *
 * The set is fetched on first use, kept for `maxAgeMs`, and fetched again early when a token names
 * a kid the set lacks (a rotation), at most once per `minRefreshIntervalMs` so junk kids cannot
 * turn every request into a fetch. When a refresh fails, the keys already held keep serving.
 */

export interface PublishedKey {
  kid: string | null;
  key: KeyObject;
  /** The key's `endorsements` member (Bot Framework), null when the key has none. */
  endorsements: string[] | null;
}

export interface RemoteKeySetOptions {
  /** Default 1 h. */
  maxAgeMs?: number;
  /** Default 60 s. */
  minRefreshIntervalMs?: number;
  /** Per request. Default 5 s. */
  timeoutMs?: number;
}

/** Raised when no key set has ever been obtained (the publisher is unreachable or answers nonsense). */
export class KeySetUnavailableError extends Error {}

const DEFAULT_MAX_AGE_MS = 3_600_000;
const DEFAULT_MIN_REFRESH_MS = 60_000;
const DEFAULT_TIMEOUT_MS = 5_000;

export class RemoteKeySet {
  private keys: PublishedKey[] | null = null;
  private fetchedAt = 0;
  private lastAttemptAt = 0;
  private inFlight: Promise<void> | null = null;

  /** `jwksUrl` is resolved per refresh: the Bot Framework names it in its OpenID metadata. */
  constructor(
    private readonly jwksUrl: () => Promise<string>,
    private readonly options: RemoteKeySetOptions = {},
  ) {}

  /** The key a token's header names (`kid`), or its only key when the header names none. */
  async keyFor(kid: string | null): Promise<PublishedKey | null> {
    const now = Date.now();
    const maxAge = this.options.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
    if (!this.keys || now - this.fetchedAt > maxAge) await this.refresh(this.keys === null);
    let found = this.pick(kid);
    const minInterval = this.options.minRefreshIntervalMs ?? DEFAULT_MIN_REFRESH_MS;
    if (!found && Date.now() - this.lastAttemptAt >= minInterval) {
      await this.refresh(false);
      found = this.pick(kid);
    }
    return found;
  }

  private pick(kid: string | null): PublishedKey | null {
    const keys = this.keys ?? [];
    if (kid === null) return keys.length === 1 ? keys[0]! : null;
    return keys.find((k) => k.kid === kid) ?? null;
  }

  /** One fetch at a time; `mustSucceed` when there is nothing to fall back on. */
  private async refresh(mustSucceed: boolean): Promise<void> {
    this.inFlight ??= this.load().finally(() => {
      this.inFlight = null;
    });
    try {
      await this.inFlight;
    } catch (error) {
      if (mustSucceed || !this.keys) throw new KeySetUnavailableError(`signing keys unavailable: ${(error as Error).message}`);
    }
  }

  private async load(): Promise<void> {
    this.lastAttemptAt = Date.now();
    const url = await this.jwksUrl();
    const body = await fetchJson(url, this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const list = (body as { keys?: unknown }).keys;
    if (!Array.isArray(list)) throw new Error(`${url} answered no "keys" array`);
    const keys: PublishedKey[] = [];
    for (const entry of list as Array<JsonWebKey & { kid?: unknown; endorsements?: unknown; use?: unknown }>) {
      if (entry.kty !== 'RSA' || (entry.use !== undefined && entry.use !== 'sig')) continue;
      try {
        const key = createPublicKey({ key: { kty: entry.kty, n: entry.n, e: entry.e }, format: 'jwk' });
        const endorsements = Array.isArray(entry.endorsements) ? entry.endorsements.filter((e): e is string => typeof e === 'string') : null;
        keys.push({ kid: typeof entry.kid === 'string' ? entry.kid : null, key, endorsements });
      } catch {
        // A malformed key is skipped; the others still serve.
      }
    }
    this.keys = keys;
    this.fetchedAt = Date.now();
  }
}

/** GET a JSON document with a timeout; non-2xx and non-JSON answers are errors. */
export async function fetchJson(url: string, timeoutMs: number): Promise<unknown> {
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`);
  try {
    return (await response.json()) as unknown;
  } catch {
    throw new Error(`${url} answered a body that is not JSON`);
  }
}
