import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { GitHttpBackend, type GitHttpCredential, routeGit } from './git-http-backend.js';

/**
 * Plumbing shared by the four tracker stand-ins: a real HTTP server on 127.0.0.1 (port 0),
 * request recording, an auth gate and fault injection. Each platform subclass implements
 * `authorized()` and `route()` with the real endpoint semantics.
 */

export interface RecordedRequest {
  method: string;
  /** Path without the query string, as sent (percent-encoding kept). */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Parsed JSON when the body was JSON, else the raw text; undefined when empty. */
  body: unknown;
  /** When the request arrived (epoch ms), for tests about retry timing. */
  at: number;
}

export interface StandInResponse {
  status: number;
  headers?: Record<string, string>;
  /** Objects and arrays are sent as JSON; strings as text. */
  body?: unknown;
}

export interface FaultSpec {
  status?: number;
  /** Sets `Retry-After` (seconds). */
  retryAfterSeconds?: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Only requests matching this count against / receive the fault. */
  match?: (req: RecordedRequest) => boolean;
}

/**
 * `unavailable`: every request answers 503; `refuse`: connections are reset without an answer;
 * `hang`: requests are read and never answered (client timeouts).
 */
export type DownMode = 'unavailable' | 'refuse' | 'hang' | null;

interface PendingFault {
  remaining: number;
  spec: FaultSpec;
}

interface Hook {
  match: (req: RecordedRequest) => boolean;
  run: () => void;
}

export abstract class StandInServer {
  readonly requests: RecordedRequest[] = [];
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private faults: PendingFault[] = [];
  private hooks: Hook[] = [];
  private down: DownMode = null;
  private baseUrl = '';
  private readonly gitMounts = new Map<string, GitHttpBackend>();

  /** `http://127.0.0.1:<port>`. */
  get url(): string {
    if (!this.baseUrl) throw new Error('stand-in not started');
    return this.baseUrl;
  }

  /** Listens on `port` (default any free one; a restart passes the port it had). */
  async start(port = 0): Promise<this> {
    const server = createServer((req, res) => void this.handle(req, res));
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    this.server = server;
    this.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Stops, then listens again on the same port (a tracker that went down and came back). */
  async restart(): Promise<void> {
    const port = Number(new URL(this.url).port);
    await this.stop();
    await this.start(port);
  }

  /** The next `count` (matching) requests answer with the fault (default 429) instead of being served. */
  failNext(count: number, spec: FaultSpec = {}): void {
    this.faults.push({ remaining: count, spec });
  }

  setDown(mode: DownMode): void {
    this.down = mode;
  }

  /** Run `action` once, just before the first matching request is served (e.g. a concurrent edit). */
  beforeNext(match: (req: RecordedRequest) => boolean, action: () => void): void {
    this.hooks.push({ match, run: action });
  }

  clearRequests(): void {
    this.requests.length = 0;
  }

  /**
   * Serves git's smart HTTP for a bare repository at `pathPrefix` (`/acme/shop-web` serves
   * `/acme/shop-web(.git)?/info/refs`, `/git-upload-pack`, `/git-receive-pack`; Azure DevOps:
   * `/acme/Shop/_git/shop-web`), behind Basic auth with the host's git credential rule (GitHub
   * `x-access-token`, GitLab `oauth2`, Azure DevOps any user: `username: null`). Git requests are
   * streamed, never body-parsed; they are recorded (without body) and obey `setDown`, not `failNext`.
   */
  mountGit(pathPrefix: string, options: { repository: string; credential: GitHttpCredential }): GitHttpBackend {
    const backend = new GitHttpBackend(options);
    this.gitMounts.set(pathPrefix.replace(/\/+$/, ''), backend);
    return backend;
  }

  protected abstract authorized(headers: IncomingHttpHeaders): boolean;
  protected abstract unauthorizedBody(): unknown;
  protected abstract route(req: RecordedRequest, segments: string[]): StandInResponse;

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = Date.now();
    if (this.gitMounts.size > 0 && this.handleGit(req, res, at)) return;
    const raw = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const recorded: RecordedRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body: parseBody(raw), at };
    this.requests.push(recorded);
    if (this.down === 'refuse') {
      req.socket.destroy();
      return;
    }
    if (this.down === 'hang') return;
    const answer = this.answer(recorded);
    send(res, answer);
  }

  /** Serves a request for a mounted git repository, raw and streaming; false when it is not one. */
  private handleGit(req: IncomingMessage, res: ServerResponse, at: number): boolean {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const route = routeGit(this.gitMounts, url.pathname);
    if (!route) return false;
    this.requests.push({ method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body: undefined, at });
    if (this.down === 'refuse') req.socket.destroy();
    else if (this.down === 'unavailable') {
      req.resume();
      send(res, { status: 503, body: 'Service Unavailable' });
    } else if (this.down !== 'hang') route.backend.handle(req, res, route.endpoint);
    return true;
  }

  private answer(req: RecordedRequest): StandInResponse {
    if (this.down === 'unavailable') return { status: 503, body: { message: 'Service Unavailable' } };
    const fault = this.faults.find((f) => f.remaining > 0 && (f.spec.match?.(req) ?? true));
    if (fault) {
      fault.remaining--;
      this.faults = this.faults.filter((f) => f.remaining > 0);
      const headers = { ...fault.spec.headers };
      if (fault.spec.retryAfterSeconds !== undefined) headers['retry-after'] = String(fault.spec.retryAfterSeconds);
      return { status: fault.spec.status ?? 429, headers, body: fault.spec.body ?? { message: 'Too Many Requests' } };
    }
    if (!this.authorized(req.headers)) return { status: 401, body: this.unauthorizedBody() };
    const hook = this.hooks.find((h) => h.match(req));
    if (hook) {
      this.hooks = this.hooks.filter((h) => h !== hook);
      hook.run();
    }
    const segments = req.path.split('/').filter(Boolean).map((s) => decodeURIComponent(s));
    try {
      return this.route(req, segments);
    } catch (err) {
      return { status: 500, body: { message: err instanceof Error ? err.message : 'internal error' } };
    }
  }
}

/** The request body as UTF-8 text (stand-ins read small JSON bodies whole). */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseBody(raw: string): unknown {
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

function send(res: ServerResponse, answer: StandInResponse): void {
  const headers: Record<string, string> = { ...answer.headers };
  let payload = '';
  if (answer.body !== undefined) {
    if (typeof answer.body === 'string') {
      payload = answer.body;
      headers['content-type'] ??= 'text/plain; charset=utf-8';
    } else {
      payload = JSON.stringify(answer.body);
      headers['content-type'] ??= 'application/json; charset=utf-8';
    }
  }
  res.writeHead(answer.status, headers);
  res.end(payload);
}

// ---- helpers the stand-ins share ----

export function json(status: number, body: unknown, headers?: Record<string, string>): StandInResponse {
  return { status, body, headers };
}

export function notFound(body: unknown = { message: 'Not Found' }): StandInResponse {
  return { status: 404, body };
}

/** `Basic base64(user:password)` → [user, password], else null. */
export function basicCredentials(header: string | undefined): [string, string] | null {
  const match = /^Basic\s+(.+)$/i.exec(header ?? '');
  if (!match?.[1]) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const sep = decoded.indexOf(':');
  return sep < 0 ? null : [decoded.slice(0, sep), decoded.slice(sep + 1)];
}

/** Offset page (1-based) of a list. */
export function pageOf<T>(items: readonly T[], page: number, perPage: number): { items: T[]; hasNext: boolean } {
  const start = (page - 1) * perPage;
  return { items: items.slice(start, start + perPage), hasNext: start + perPage < items.length };
}

export function intParam(query: URLSearchParams, name: string, fallback: number): number {
  const value = Number(query.get(name));
  return Number.isInteger(value) && value > 0 ? value : fallback;
}
