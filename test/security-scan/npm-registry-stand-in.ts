import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** An advisory as the bulk endpoint answers it. */
export interface BulkAdvisory {
  id: number;
  url: string;
  title: string;
  severity: 'critical' | 'high' | 'moderate' | 'low' | 'info';
  vulnerable_versions: string;
  cwe: string[];
  cvss: { score: number; vectorString: string | null };
}

/**
 * A local npm registry with what `npm audit` (npm 7+) asks of one: the bulk advisory endpoint
 * (`POST /-/npm/v1/security/advisories/bulk`, a gzip-encoded `{name: [versions]}` answered with
 * `{name: [advisory]}`) and packuments (`GET /<name>`), which npm reads to work out `fixAvailable`.
 */
export class NpmRegistryStandIn {
  /** Every bulk request's decoded body, in order. */
  readonly bulkRequests: Record<string, string[]>[] = [];
  private server: Server | null = null;

  constructor(
    private readonly advisories: Record<string, BulkAdvisory[]>,
    /** Package name → its published versions (the last is `latest`) → each version's dependencies. */
    private readonly versions: Record<string, Record<string, Record<string, string>>>,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/`;
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const json = (status: number, body: unknown) => {
          response.writeHead(status, { 'content-type': 'application/json' });
          response.end(JSON.stringify(body));
        };
        const path = decodeURIComponent((request.url ?? '/').split('?')[0]!);
        if (request.method === 'POST' && path === '/-/npm/v1/security/advisories/bulk') {
          const raw = Buffer.concat(chunks);
          const body = JSON.parse((request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8')) as Record<string, string[]>;
          this.bulkRequests.push(body);
          const answer: Record<string, BulkAdvisory[]> = {};
          for (const name of Object.keys(body)) if (this.advisories[name]) answer[name] = this.advisories[name];
          json(200, answer);
          return;
        }
        const name = path.slice(1);
        const published = request.method === 'GET' ? this.versions[name] : undefined;
        if (!published) {
          json(404, { error: 'Not found' });
          return;
        }
        const tarball = (version: string) => `${this.url}${name}/-/${name.split('/').pop()}-${version}.tgz`;
        const versions = Object.keys(published);
        json(200, {
          name,
          'dist-tags': { latest: versions.at(-1) },
          versions: Object.fromEntries(versions.map((version) => [version, { name, version, dependencies: published[version], dist: { tarball: tarball(version) } }])),
        });
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
