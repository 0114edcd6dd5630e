import { APICallError } from 'ai';
import { abortError, sleep } from './abort.js';
import type { ProviderGate } from './provider-gate.js';

/** How provider calls are retried. The SDK's own retry is off (maxRetries: 0): this is the only one. */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** The first back-off; doubled per attempt, with jitter. */
  baseDelayMs: number;
  /** No single wait is longer, whatever Retry-After asks. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 1000, maxDelayMs: 60_000 };

/** A provider call that failed for good: the last error, and how many attempts were made. */
export class ProviderFailure extends Error {
  override readonly name = 'ProviderFailure';
  constructor(readonly attempts: number, readonly lastError: unknown, message: string) {
    super(message);
  }
}

/** Error codes of a connection that failed before an answer: worth another attempt. */
const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/**
 * 429 and 5xx (and 408) are the provider saying "not now"; an APICallError without a status is
 * a request that never got an answer (the SDK marks those retryable). Other statuses (400 bad
 * request, 401 key, 404 model) will fail the same way again.
 */
export function isRetryable(error: unknown): boolean {
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    if (status === undefined) return error.isRetryable;
    return status === 429 || status === 408 || status >= 500;
  }
  return isNetworkError(error);
}

function isNetworkError(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; e = (e as { cause?: unknown }).cause, depth += 1) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
    if (e instanceof TypeError && /fetch failed|network|socket/i.test(e.message)) return true;
  }
  return false;
}

/** What the provider asked us to wait, from `retry-after-ms` or `retry-after` (seconds or an HTTP date); null when it did not say. */
export function retryAfterMs(error: unknown, now: number = Date.now()): number | null {
  if (!APICallError.isInstance(error) || !error.responseHeaders) return null;
  const headers = lowerCased(error.responseHeaders);
  const ms = Number.parseFloat(headers['retry-after-ms'] ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers['retry-after']?.trim();
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value)) return Number.parseFloat(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

/** Exponential back-off with jitter: base × 2^(attempt−1), scaled by a random 0.5–1 so parallel runs spread out. */
export function backoffMs(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const exponential = policy.baseDelayMs * 2 ** (attempt - 1);
  return Math.min(policy.maxDelayMs, exponential * (0.5 + random() / 2));
}

/** One line about a provider error: status, message and the start of the body, whitespace folded. */
export function describeProviderError(error: unknown): string {
  let text: string;
  if (APICallError.isInstance(error)) {
    const status = error.statusCode === undefined ? 'no answer' : `HTTP ${error.statusCode}`;
    const body = typeof error.responseBody === 'string' ? error.responseBody : '';
    text = `${status}: ${error.message}${body && !error.message.includes(body) ? ` (${body})` : ''}`;
  } else if (error instanceof Error) {
    text = `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}`;
  } else {
    text = String(error);
  }
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}

export interface RetryContext {
  gate: ProviderGate;
  gateKey: string;
  /** Fires on cancel or when the step's time is up: waits end at once. */
  signal: AbortSignal;
  /** Epoch ms; no wait is planned past it. */
  deadline: number;
  policy: RetryPolicy;
  /** `provider/model`, for the error line. */
  label: string;
  now?: () => number;
  random?: () => number;
}

/**
 * Runs `attempt` until it succeeds, a non-retryable error, `maxAttempts`, or a wait that would
 * end past the step deadline; each attempt first takes its turn at the provider gate. A fired
 * signal rejects with the abort error (the caller tells cancel from timeout); every other end is
 * a ProviderFailure with a one-line message.
 */
export async function withProviderRetry<T>(attempt: (signal: AbortSignal) => Promise<T>, context: RetryContext): Promise<{ value: T; attempts: number }> {
  const now = context.now ?? Date.now;
  for (let n = 1; ; n += 1) {
    await context.gate.acquire(context.gateKey, context.signal);
    try {
      return { value: await attempt(context.signal), attempts: n };
    } catch (error) {
      if (context.signal.aborted) throw abortError(context.signal);
      const what = describeProviderError(error);
      if (!isRetryable(error)) throw new ProviderFailure(n, error, `${context.label} failed: ${what}`);
      if (n >= context.policy.maxAttempts) throw new ProviderFailure(n, error, `${context.label} failed after ${n} attempts: ${what}`);
      const asked = retryAfterMs(error, now());
      const wait = Math.min(context.policy.maxDelayMs, asked ?? backoffMs(n, context.policy, context.random));
      if (now() + wait > context.deadline) {
        throw new ProviderFailure(n, error, `${context.label} failed after ${n} attempt${n === 1 ? '' : 's'}, the next retry (in ${Math.ceil(wait / 1000)} s) would pass the step deadline: ${what}`);
      }
      await sleep(wait, context.signal);
    }
  }
}
