import type { Params } from 'nestjs-pino';

/** Request headers that carry credentials or signatures: never logged. */
export const REDACTED_HEADERS = [
  'authorization', 'cookie', 'x-hub-signature', 'x-hub-signature-256', 'x-gitlab-token', 'x-platformb-token',
];

export function loggerOptions(level: string): Params {
  return {
    pinoHttp: {
      level,
      redact: { paths: REDACTED_HEADERS.map((h) => `req.headers["${h}"]`), censor: '[redacted]' },
      // Liveness probes hit /health every few seconds; logging each would drown the rest.
      autoLogging: { ignore: (req) => (req.url ?? '').startsWith('/health') },
      quietReqLogger: true,
      // Every delivery already has its trigger-log row and its transition line: a successful
      // request is only worth a debug line; refusals and failures stay visible.
      customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'debug'),
    },
  };
}
