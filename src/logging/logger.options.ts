import type { Params } from 'nestjs-pino';
import type { Options } from 'pino-http';
import { prettyStream } from './pretty-stream.js';

/** Paths polled by probes and scrapers every few seconds: not logged per request (they would drown the rest). */
const UNLOGGED_PATHS = ['/health', '/metrics'];

/** True for a probe or scrape URL: one of UNLOGGED_PATHS or below it, with or without a query. */
export function isUnloggedPath(url: string): boolean {
  const path = url.split('?', 1)[0]!;
  return UNLOGGED_PATHS.some((p) => path === p || path.startsWith(`${p}/`));
}

/** Request headers that carry credentials or signatures: never logged. */
export const REDACTED_HEADERS = [
  'authorization', 'cookie', 'x-hub-signature', 'x-hub-signature-256', 'x-gitlab-token', 'x-platformb-token',
];

export type LogFormat = 'pretty' | 'json';

export function loggerOptions(level: string, format: LogFormat = 'json'): Params {
  const options: Options = {
    level,
    redact: { paths: REDACTED_HEADERS.map((h) => `req.headers["${h}"]`), censor: '[redacted]' },
    autoLogging: { ignore: (req) => isUnloggedPath(req.url ?? '') },
    quietReqLogger: true,
    // Every delivery already has its trigger-log row and its transition line: a successful
    // request is only worth a debug line; refusals and failures stay visible.
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'debug'),
  };
  // JSON lines for machines; for a person at a terminal the same records, redacted the same way, as readable lines.
  return { pinoHttp: format === 'pretty' ? [options, prettyStream()] : options };
}
