import { connectionKeyOf, reportConnectionCall } from '../../common/connection-calls.js';
import type { Platform } from '../platform.js';
import { TrackerError } from '../tracker-client.js';

/**
 * The one HTTP path every tracker client uses.
 *
 * Design decision: thin typed `fetch` clients (Node 24 global fetch), not the vendor SDKs
 * (Octokit, @gitbeaker, azure-devops-node-api, jira.js). The lifecycle's atomicity rules need
 * exact control of `ETag`/`If-Match`, JSON Patch `test` operations and status codes (412/409
 * are outcomes, not exceptions); rate limits (429, 503, GitHub's secondary limits on 403) need
 * one shared retry/back-off policy rather than four; and it keeps four dependency trees out.
 *
 * Behaviour:
 * - base URL + path joined; every request URL, however spelled (an absolute `Link: rel="next"`,
 *   `http:/host`, `\\host`, …), is resolved first and sent only when it lands on the base
 *   URL's origin and under its path, so the credential never travels to another host;
 * - the auth header is injected per request; every error message is scrubbed of the secret,
 *   its base64 form and the header value;
 * - each attempt has its own timeout (`AbortSignal.timeout`);
 * - bounded retries: 429, 503 and rate-limited 403 (`retry-after`, or `x-ratelimit-remaining: 0`
 *   with `x-ratelimit-reset`, or a "secondary rate limit" message → at least 60 s) are retried
 *   for any method (the server did not act); 502/504, network errors and timeouts only for
 *   idempotent requests (a repeated POST could post a comment twice). A server-mandated wait is
 *   honoured exactly; otherwise exponential back-off with full jitter. When the mandated wait
 *   exceeds `maxRetryWaitMs` the call fails at once with a retryable `TrackerError` carrying
 *   `retryAfterMs`, instead of retrying early or blocking for minutes.
 * - `sleep`, `now` and `random` are injectable so tests run without real waits.
 */

export interface TrackerHttpOptions {
  /** Per attempt. Default 10 s. */
  timeoutMs?: number;
  /** Attempts in total, first included. Default 4. */
  maxAttempts?: number;
  /** First back-off step; doubles per retry. Default 500 ms. */
  baseBackoffMs?: number;
  /** Longest single wait; a longer server-mandated wait fails the call (retryable). Default 30 s. */
  maxRetryWaitMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** Epoch milliseconds. */
  now?: () => number;
  /** In [0, 1). */
  random?: () => number;
  fetch?: typeof fetch;
  userAgent?: string;
  /**
   * Report each call's outcome to the diagnostics (`reportConnectionCall`). Default true; a
   * diagnostics probe turns it off, as it records its own result.
   */
  observe?: boolean;
}

export interface TrackerAuth {
  header: string;
  value: string;
  /** Raw secrets to scrub from messages besides the header value. */
  secrets: string[];
}

export function bearerAuth(token: string): TrackerAuth {
  return { header: 'Authorization', value: `Bearer ${token}`, secrets: [token] };
}

export function basicAuth(user: string, password: string): TrackerAuth {
  const encoded = Buffer.from(`${user}:${password}`).toString('base64');
  return { header: 'Authorization', value: `Basic ${encoded}`, secrets: [password, `${user}:${password}`, encoded] };
}

export function tokenHeaderAuth(header: string, token: string): TrackerAuth {
  return { header, value: token, secrets: [token] };
}

export type QueryValue = string | number | boolean | undefined | null;

export interface TrackerRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Relative to the base URL, or an absolute URL on the same origin. */
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
  /** Safe to repeat after an ambiguous failure (502/504/network/timeout). Default: not POST. */
  idempotent?: boolean;
  /** Statuses handed back to the caller as responses instead of thrown (e.g. 412, 409). */
  passStatuses?: readonly number[];
}

export interface TrackerResponse<T> {
  status: number;
  headers: Headers;
  body: T;
}

const SECONDARY_LIMIT_MIN_MS = 60_000;

export class TrackerHttp {
  private readonly base: URL;
  private readonly opts: Required<Omit<TrackerHttpOptions, 'fetch' | 'userAgent'>> & Pick<TrackerHttpOptions, 'fetch' | 'userAgent'>;
  /** The diagnostics' key of this connection: the base URL and the credential, digested. */
  readonly observedAs: string;

  constructor(
    readonly platform: Platform,
    baseUrl: string,
    private readonly auth: TrackerAuth,
    options: TrackerHttpOptions = {},
  ) {
    this.base = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
    this.opts = {
      timeoutMs: options.timeoutMs ?? 10_000,
      maxAttempts: Math.max(1, options.maxAttempts ?? 4),
      baseBackoffMs: options.baseBackoffMs ?? 500,
      maxRetryWaitMs: options.maxRetryWaitMs ?? 30_000,
      sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
      now: options.now ?? Date.now,
      random: options.random ?? Math.random,
      fetch: options.fetch,
      userAgent: options.userAgent,
      observe: options.observe ?? true,
    };
    this.observedAs = connectionKeyOf(this.base.href, this.auth.value);
  }

  /** The base URL as requests resolve against it (credential-free: userinfo is refused anyway). */
  get baseUrl(): string {
    return this.base.href;
  }

  /**
   * One call (with its retries). Its outcome is reported to the diagnostics: the host answered
   * and took the credential (any answer but 401, 403, 429 and 5xx), or not.
   */
  async request<T>(req: TrackerRequest): Promise<TrackerResponse<T>> {
    try {
      const res = await this.attempts<T>(req);
      if (this.opts.observe) reportConnectionCall(this.observedAs, true, null);
      return res;
    } catch (error) {
      if (this.opts.observe && error instanceof TrackerError) reportConnectionCall(this.observedAs, !connectionFault(error.status), error.message);
      throw error;
    }
  }

  private async attempts<T>(req: TrackerRequest): Promise<TrackerResponse<T>> {
    const url = this.resolve(req);
    const idempotent = req.idempotent ?? req.method !== 'POST';
    const label = `${req.method} ${url.pathname}`;
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= this.opts.maxAttempts;
      let res: Response;
      try {
        res = await this.send(req, url);
      } catch (err) {
        const reason = describeNetworkError(err);
        if (!idempotent || last) throw this.fail(`${label} failed: ${reason}`, null, true);
        await this.opts.sleep(this.backoff(attempt));
        continue;
      }
      if (res.status === 203) {
        // Azure DevOps answers a rejected credential with 203 and an HTML sign-in page.
        throw this.fail(`${label} → HTTP 203: credential rejected (sign-in page returned)`, 401, false);
      }
      if (res.ok || req.passStatuses?.includes(res.status)) {
        return { status: res.status, headers: res.headers, body: (await parseBody(res)) as T };
      }
      const text = await res.text().catch(() => '');
      const decision = this.retryDecision(res, text, idempotent, attempt);
      if (decision.retry && !last) {
        if (decision.waitMs > this.opts.maxRetryWaitMs) {
          throw this.fail(`${label} → HTTP ${res.status}: rate limited for ${decision.waitMs} ms`, res.status, true, decision.waitMs);
        }
        await this.opts.sleep(decision.waitMs);
        continue;
      }
      const retryable = decision.retry || [500, 502, 503, 504].includes(res.status);
      const hint = decision.mandated ? decision.waitMs : null;
      throw this.fail(`${label} → HTTP ${res.status}${errorDetail(text)}`, res.status, retryable, hint);
    }
  }

  private async send(req: TrackerRequest, url: URL): Promise<Response> {
    const headers: Record<string, string> = { Accept: 'application/json', ...req.headers, [this.auth.header]: this.auth.value };
    if (this.opts.userAgent) headers['User-Agent'] = this.opts.userAgent;
    let body: string | undefined;
    if (req.body !== undefined) {
      body = JSON.stringify(req.body);
      headers['Content-Type'] = req.contentType ?? 'application/json';
    }
    const doFetch = this.opts.fetch ?? fetch;
    return doFetch(url, { method: req.method, headers, body, signal: AbortSignal.timeout(this.opts.timeoutMs), redirect: 'manual' });
  }

  /**
   * The request's URL: `path` resolved against the base URL, then checked. Whatever the spelling
   * (`http:/host`, `\\host`, `/\host`, a leading tab or space, an upper-case scheme, userinfo),
   * the URL that would actually be fetched must be on the base URL's origin, under its path and
   * without userinfo; otherwise nothing is sent. `path` may come from a response (`Link:
   * rel="next"`), i.e. from whoever answers for the tracker host, so it is never trusted.
   */
  private resolve(req: TrackerRequest): URL {
    let url: URL;
    try {
      // Leading slashes mean "from the base URL" (as documented), not "from the host's root".
      url = new URL(req.path.replace(/^\/+/, ''), this.base);
    } catch {
      throw this.fail(`refusing an unparsable request URL ${describePath(req.path)}`, null, false);
    }
    if (url.origin !== this.base.origin || url.origin === 'null') {
      throw this.fail(`refusing to send credentials to another origin: ${url.origin} (request URL ${describePath(req.path)}; configured ${this.base.origin})`, null, false);
    }
    if (!url.pathname.startsWith(this.base.pathname)) {
      throw this.fail(`refusing to send credentials outside the configured base URL ${this.base.href}: ${url.pathname}`, null, false);
    }
    if (url.username !== '' || url.password !== '') {
      throw this.fail(`refusing a request URL with userinfo: ${describePath(req.path)}`, null, false);
    }
    for (const [key, value] of Object.entries(req.query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.set(key, String(value));
    }
    return url;
  }

  private retryDecision(res: Response, text: string, idempotent: boolean, attempt: number): { retry: boolean; waitMs: number; mandated: boolean } {
    const mandated = this.mandatedWaitMs(res.headers);
    const status = res.status;
    if (status === 403) {
      if (mandated === null && !/rate limit/i.test(text)) return { retry: false, waitMs: 0, mandated: false };
      // GitHub: without retry-after / reset, wait at least one minute before retrying.
      return { retry: true, waitMs: mandated ?? Math.max(SECONDARY_LIMIT_MIN_MS, this.backoff(attempt)), mandated: true };
    }
    if (status === 429 || status === 503 || (idempotent && (status === 502 || status === 504))) {
      return { retry: true, waitMs: mandated ?? this.backoff(attempt), mandated: mandated !== null };
    }
    return { retry: false, waitMs: 0, mandated: false };
  }

  /** `Retry-After` (seconds or HTTP date), else `x-ratelimit-remaining: 0` + `x-ratelimit-reset`. */
  private mandatedWaitMs(headers: Headers): number | null {
    const retryAfter = headers.get('retry-after');
    if (retryAfter !== null) {
      const seconds = Number(retryAfter);
      if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds * 1000));
      const date = Date.parse(retryAfter);
      if (!Number.isNaN(date)) return Math.max(0, date - this.opts.now());
    }
    if (headers.get('x-ratelimit-remaining') === '0') {
      const reset = Number(headers.get('x-ratelimit-reset'));
      if (Number.isFinite(reset) && reset > 0) return Math.max(0, reset * 1000 - this.opts.now());
    }
    return null;
  }

  /** Exponential with full jitter, capped. */
  private backoff(attempt: number): number {
    const ceiling = Math.min(this.opts.maxRetryWaitMs, this.opts.baseBackoffMs * 2 ** (attempt - 1));
    return Math.round(this.opts.random() * ceiling);
  }

  private fail(message: string, status: number | null, retryable: boolean, retryAfterMs: number | null = null): TrackerError {
    return new TrackerError(`${this.platform}: ${this.redact(message)}`, this.platform, status, retryable, retryAfterMs);
  }

  redact(text: string): string {
    const secrets = [this.auth.value, ...this.auth.secrets].filter((s) => s.length >= 4);
    let out = text;
    for (const secret of secrets.sort((a, b) => b.length - a.length)) {
      out = out.split(secret).join('***').split(encodeURIComponent(secret)).join('***');
    }
    return out;
  }
}

/** A failure of the connection itself rather than of one request: no answer, the credential refused, throttled, the host failing. */
function connectionFault(status: number | null): boolean {
  return status === null || status === 401 || status === 403 || status === 429 || status >= 500;
}

async function parseBody(res: Response): Promise<unknown> {
  const text = await res.text();
  if (text.length === 0) return undefined;
  const type = res.headers.get('content-type') ?? '';
  if (type.includes('json')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

/** A path or URL from the outside, quoted and clipped for an error message (no userinfo shown). */
function describePath(path: string): string {
  const clipped = path.length > 200 ? `${path.slice(0, 200)}…` : path;
  return JSON.stringify(clipped.replace(/\/\/[^/@\s]*@/g, '//…@'));
}

/** A short, human part of an error body: `message`, Jira `errorMessages`, else the text. */
function errorDetail(text: string): string {
  if (!text) return '';
  let detail = text;
  try {
    const parsed = JSON.parse(text) as { message?: unknown; errorMessages?: unknown; errors?: unknown };
    if (typeof parsed.message === 'string') detail = parsed.message;
    else if (Array.isArray(parsed.errorMessages) && parsed.errorMessages.length > 0) detail = parsed.errorMessages.join('; ');
    else if (parsed.errors !== undefined) detail = JSON.stringify(parsed.errors);
  } catch {
    // not JSON: keep the text
  }
  detail = detail.replace(/\s+/g, ' ').trim();
  return `: ${detail.length > 200 ? `${detail.slice(0, 200)}…` : detail}`;
}

function describeNetworkError(err: unknown): string {
  if (err instanceof Error) {
    if (err.name === 'TimeoutError' || err.name === 'AbortError') return 'timed out';
    const code = (err as { cause?: { code?: unknown } }).cause?.code;
    return typeof code === 'string' ? `${err.message} (${code})` : err.message;
  }
  return 'network error';
}

/** Next page URL from a `Link` header (GitHub), or null. */
export function nextLink(headers: Headers): string | null {
  const link = headers.get('link');
  if (!link) return null;
  for (const part of link.split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part.trim());
    if (match?.[1]) return match[1];
  }
  return null;
}
