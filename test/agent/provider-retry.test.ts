import { APICallError } from 'ai';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY, backoffMs, isRetryable, retryAfterMs } from '../../src/agent/provider-retry.js';

function apiError(statusCode: number | undefined, headers: Record<string, string> = {}, isRetryable = false) {
  return new APICallError({ message: 'x', url: 'http://p.test', requestBodyValues: {}, statusCode, responseHeaders: headers, isRetryable });
}

describe('provider retry rules', () => {
  it('retries 429, 408 and 5xx, a request that got no answer, and network errors; not 400, 401, 404', () => {
    for (const status of [429, 408, 500, 502, 503, 529]) expect(isRetryable(apiError(status)), String(status)).toBe(true);
    for (const status of [400, 401, 403, 404, 422]) expect(isRetryable(apiError(status)), String(status)).toBe(false);
    expect(isRetryable(apiError(undefined, {}, true))).toBe(true);
    expect(isRetryable(new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) }))).toBe(true);
    expect(isRetryable(new Error('schema mismatch'))).toBe(false);
  });

  it('reads Retry-After as seconds or an HTTP date, and retry-after-ms first', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs(apiError(429, { 'retry-after': '7' }), now)).toBe(7000);
    expect(retryAfterMs(apiError(429, { 'Retry-After': '1.5' }), now)).toBe(1500);
    expect(retryAfterMs(apiError(429, { 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }), now)).toBe(30_000);
    expect(retryAfterMs(apiError(429, { 'retry-after': '7', 'retry-after-ms': '250' }), now)).toBe(250);
    expect(retryAfterMs(apiError(429, { 'retry-after': 'soon' }), now)).toBeNull();
    expect(retryAfterMs(apiError(429), now)).toBeNull();
  });

  it('backs off exponentially with jitter, capped', () => {
    expect(backoffMs(1, DEFAULT_RETRY, () => 1)).toBe(1000);
    expect(backoffMs(1, DEFAULT_RETRY, () => 0)).toBe(500);
    expect(backoffMs(3, DEFAULT_RETRY, () => 1)).toBe(4000);
    expect(backoffMs(20, DEFAULT_RETRY, () => 1)).toBe(60_000);
  });
});
