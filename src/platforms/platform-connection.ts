import type { TrackerHttp, QueryValue } from './http/tracker-http.js';

/**
 * A tracker or code host as the diagnostics see it: where it is (a URL without credentials), the
 * key its normal calls are reported under (`TrackerHttp.observedAs`), and one read-only
 * authenticated round trip that proves the address and the credential together. Each platform
 * folder builds its own (`*-connection.ts`); `platform-connections.ts` picks one, so nothing
 * outside `platforms/` needs to know a platform's API.
 */
export interface PlatformConnection {
  target: string;
  observedAs: string;
  /** One GET, no retry, bounded by the client's timeout; throws a TrackerError when it fails. */
  probe(): Promise<void>;
}

/** A connection that cannot be made from the configuration, and what is missing. */
export interface UnconfiguredConnection {
  unconfigured: string;
  /** Where it would go, when that much is known. */
  target: string | null;
}

/** The GET `path` (with `query`) on `http`, as a PlatformConnection. */
export function getConnection(http: TrackerHttp, path: string, options: { query?: Record<string, QueryValue>; headers?: Record<string, string> } = {}): PlatformConnection {
  return {
    target: new URL(path, http.baseUrl).href,
    observedAs: http.observedAs,
    async probe() {
      await http.request({ method: 'GET', path, query: options.query, headers: options.headers });
    },
  };
}
