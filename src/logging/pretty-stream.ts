import { Writable } from 'node:stream';

const LEVELS: Record<number, { name: string; color: string }> = {
  10: { name: 'TRACE', color: '90' },
  20: { name: 'DEBUG', color: '36' },
  30: { name: 'INFO ', color: '32' },
  40: { name: 'WARN ', color: '33' },
  50: { name: 'ERROR', color: '31' },
  60: { name: 'FATAL', color: '35' },
};
/** pino's own fields, shown in the line's head or not at all. */
const HEAD_FIELDS = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'context', 'req', 'res', 'responseTime', 'err']);

/**
 * One readable line per pino record, for a person at a terminal (LOG_FORMAT=pretty): time, level,
 * context, message, then the other fields as key=value. It formats what pino already serialized
 * and redacted, so the redaction is the same as the JSON lines'.
 */
export function formatPrettyLine(json: string, color: boolean): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const paint = (code: string, text: string) => (color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const level = LEVELS[Number(record['level'])] ?? { name: String(record['level']).padEnd(5), color: '0' };
  const time = typeof record['time'] === 'number' ? new Date(record['time']).toISOString().slice(11, 23) : '';
  const context = typeof record['context'] === 'string' ? paint('90', `[${record['context']}] `) : '';
  const req = record['req'] as { method?: string; url?: string } | undefined;
  const res = record['res'] as { statusCode?: number } | undefined;
  const request = req?.method ? ` ${req.method} ${req.url ?? ''}${res?.statusCode ? ` → ${res.statusCode}` : ''}${typeof record['responseTime'] === 'number' ? ` ${record['responseTime']} ms` : ''}` : '';
  const extras = Object.entries(record)
    .filter(([key]) => !HEAD_FIELDS.has(key))
    .map(([key, value]) => `${paint('90', `${key}=`)}${typeof value === 'string' ? value : JSON.stringify(value)}`);
  const err = record['err'] as { message?: string; stack?: string } | undefined;
  const tail = err?.stack ? `\n${paint('31', err.stack)}` : err?.message ? ` ${paint('31', err.message)}` : '';
  return `${paint('90', time)} ${paint(level.color, level.name)} ${context}${String(record['msg'] ?? '')}${request}${extras.length > 0 ? ` ${extras.join(' ')}` : ''}${tail}`;
}

/** A destination for pino that writes pretty lines to `out` (standard output by default). */
export function prettyStream(out: NodeJS.WritableStream = process.stdout, color = Boolean((out as { isTTY?: boolean }).isTTY)): Writable {
  let pending = '';
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      pending += chunk.toString();
      let newline = pending.indexOf('\n');
      while (newline !== -1) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        if (line.trim() !== '') out.write(`${formatPrettyLine(line, color)}\n`);
        newline = pending.indexOf('\n');
      }
      done();
    },
  });
}
