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
    },
  };
}
