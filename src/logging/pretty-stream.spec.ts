import { PassThrough } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { REDACTED_HEADERS } from './logger.options.js';
import { formatPrettyLine, prettyStream } from './pretty-stream.js';

function capture(color = false) {
  const out = new PassThrough();
  const chunks: string[] = [];
  out.on('data', (c: Buffer) => chunks.push(c.toString()));
  return { stream: prettyStream(out, color), text: () => chunks.join('') };
}

describe('pretty log lines', () => {
  it('prints time, level, context, message, the request and the other fields on one line', () => {
    const line = formatPrettyLine(JSON.stringify({
      level: 40, time: Date.parse('2026-11-28T16:05:07.123Z'), pid: 1, hostname: 'h', context: 'Store', msg: 'store unreachable',
      req: { method: 'POST', url: '/webhook/platform-a' }, res: { statusCode: 503 }, responseTime: 12, project: 'shop',
    }), false);
    expect(line).toBe('16:05:07.123 WARN  [Store] store unreachable POST /webhook/platform-a → 503 12 ms project=shop');
  });

  it('colours only for a terminal, and passes a line it cannot read through as it is', () => {
    expect(formatPrettyLine(JSON.stringify({ level: 50, time: 0, msg: 'x' }), true)).toContain('\u001b[31mERROR');
    expect(formatPrettyLine('not json', true)).toBe('not json');
  });

  it('redacts exactly as the JSON lines do: the record is formatted after pino redacted it', async () => {
    const { stream, text } = capture();
    const logger = pino({ redact: { paths: REDACTED_HEADERS.map((h) => `req.headers["${h}"]`), censor: '[redacted]' } }, stream);
    logger.warn({ req: { method: 'GET', url: '/api/runs', headers: { authorization: 'Bearer eyJhbGciOi.secret.token' } }, detail: { headers: 'n/a' } }, 'refused');
    logger.flush();
    await new Promise((done) => setImmediate(done));
    expect(text()).toContain('WARN  refused GET /api/runs');
    expect(text()).not.toContain('eyJhbGciOi');
  });
});
