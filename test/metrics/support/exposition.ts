import type { NestFastifyApplication } from '@nestjs/platform-fastify';

/** One sample line of the Prometheus text format: `name{label="value",…} value`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Scrape {
  status: number;
  contentType: string | undefined;
  text: string;
  samples: Sample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses the sample lines of an exposition (comments and blank lines skipped); throws on a line it cannot read. */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) labels[key!] = value!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** GET /metrics through `inject`, parsed when it answered 200. */
export async function scrape(app: NestFastifyApplication): Promise<Scrape> {
  const response = await app.inject({ method: 'GET', url: '/metrics' });
  const type = response.headers['content-type'];
  return {
    status: response.statusCode,
    contentType: typeof type === 'string' ? type : undefined,
    text: response.body,
    samples: response.statusCode === 200 ? parseExposition(response.body) : [],
  };
}

/** The samples named `name` whose labels include `labels`. */
export function find(scraped: Scrape, name: string, labels: Record<string, string> = {}): Sample[] {
  return scraped.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** The value of the one sample named `name` with exactly these labels; 0 when absent (a counter not yet incremented). */
export function value(scraped: Scrape, name: string, labels: Record<string, string> = {}): number {
  const exact = scraped.samples.filter((s) => s.name === name && sameLabels(s.labels, labels));
  if (exact.length > 1) throw new Error(`${exact.length} samples of ${name} ${JSON.stringify(labels)}`);
  return exact[0]?.value ?? 0;
}

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}
