import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * The body of a webhook delivery that is not valid JSON. The spec refuses an unsigned delivery
 * with 401 "before any handler runs", and the signature is over the raw bytes: so a malformed
 * body must reach the signature check (as this marker, raw bytes kept) instead of being refused
 * with 400 by the JSON parser first. Once the signature holds, the delivery gets its 400.
 */
export class MalformedBody {
  constructor(readonly reason: string) {}
}

type Done = (error: Error | null, body?: unknown) => void;
type JsonParser = (req: FastifyRequest, body: Buffer, done: Done) => void;

/** Only these routes (webhooks, chat) defer a JSON error; every other route refuses it at once, as before. */
const WEBHOOK_PATH = /^\/(?:webhook|chat)(?:\/|\?|$)/;

/**
 * A JSON body parser for `app.useBodyParser('application/json', …)` (raw bytes kept by `rawBody: true`): Fastify's own
 * (prototype-poisoning checks included) whose failures on webhook routes become a MalformedBody.
 */
export function webhookTolerantJsonParser(fastify: FastifyInstance): JsonParser {
  const { onProtoPoisoning, onConstructorPoisoning } = fastify.initialConfig as { onProtoPoisoning?: 'error'; onConstructorPoisoning?: 'error' };
  const parseJson = fastify.getDefaultJsonParser(onProtoPoisoning ?? 'error', onConstructorPoisoning ?? 'error') as unknown as JsonParser;
  return (req, body, done) => {
    parseJson(req, body, (error, value) => {
      if (error && WEBHOOK_PATH.test(req.url)) done(null, new MalformedBody(`the body is not valid JSON: ${error.message}`));
      else done(error, value);
    });
  };
}
