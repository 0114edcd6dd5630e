import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { basename, dirname } from 'node:path';

/**
 * Git's smart HTTP protocol served by the real `git http-backend` (run as CGI) for one bare
 * repository, behind HTTP Basic authentication, with fetch and push (`http.receivepack`) enabled.
 * Request and response bodies are streamed; gzip-encoded request bodies are inflated by
 * http-backend itself (HTTP_CONTENT_ENCODING). Mount it on a GitServer or a stand-in
 * (`StandInServer.mountGit`).
 */

export const GIT_HTTP_BACKEND = '/usr/lib/git-core/git-http-backend';

/** The pair the host accepts; `username` null accepts any user name (Azure DevOps PATs). */
export interface GitHttpCredential {
  username: string | null;
  password: string;
}

export interface GitRequestRecord {
  method: string;
  /** `/info/refs`, `/git-upload-pack` or `/git-receive-pack`. */
  endpoint: string;
  /** `git-upload-pack` (fetch) or `git-receive-pack` (push). */
  service: string;
  status: number;
  requestBytes: number;
  responseBytes: number;
}

export interface GitHttpBackendOptions {
  /** The bare repository served. */
  repository: string;
  credential: GitHttpCredential;
}

const ENDPOINT = /^(?:\.git)?(\/info\/refs|\/git-upload-pack|\/git-receive-pack)$/;

export class GitHttpBackend {
  /** Every authenticated request, in order. */
  readonly requests: GitRequestRecord[] = [];
  /** Requests refused for missing or wrong credentials. */
  authFailures = 0;

  constructor(readonly options: GitHttpBackendOptions) {}

  /** The endpoint `rest` (what follows the mount path) names, or null when it is none of git's. */
  static endpointOf(rest: string): string | null {
    return ENDPOINT.exec(rest)?.[1] ?? null;
  }

  /** Requests to `git-upload-pack`/`git-receive-pack` that carried a pack negotiation or pack (POSTs). */
  posts(service: 'git-upload-pack' | 'git-receive-pack'): GitRequestRecord[] {
    return this.requests.filter((r) => r.method === 'POST' && r.service === service);
  }

  clear(): void {
    this.requests.length = 0;
    this.authFailures = 0;
  }

  /** Serves one request for `endpoint` (see endpointOf). */
  handle(req: IncomingMessage, res: ServerResponse, endpoint: string): void {
    const user = this.authenticate(req.headers.authorization);
    if (user === null) {
      this.authFailures++;
      req.resume();
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"', 'content-type': 'text/plain' });
      res.end('Authentication required\n');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://git');
    const service = endpoint === '/info/refs' ? (url.searchParams.get('service') ?? '') : endpoint.slice(1);
    const record: GitRequestRecord = { method: req.method ?? 'GET', endpoint, service, status: 0, requestBytes: 0, responseBytes: 0 };
    this.requests.push(record);
    const { repository } = this.options;
    const env: Record<string, string> = {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: dirname(repository),
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'http.receivepack',
      GIT_CONFIG_VALUE_0: 'true',
      GIT_PROJECT_ROOT: dirname(repository),
      GIT_HTTP_EXPORT_ALL: '1',
      GIT_HTTP_MAX_REQUEST_BUFFER: '1000M',
      GATEWAY_INTERFACE: 'CGI/1.1',
      PATH_INFO: `/${basename(repository)}${endpoint}`,
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: record.method,
      REMOTE_USER: user,
      REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
      CONTENT_TYPE: req.headers['content-type'] ?? '',
    };
    if (req.headers['content-length'] !== undefined) env.CONTENT_LENGTH = req.headers['content-length'];
    // CGI passes request headers as HTTP_*: Git-Protocol (v2) and Content-Encoding (gzip) matter.
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string' && name !== 'authorization') env[`HTTP_${name.toUpperCase().replace(/-/g, '_')}`] = value;
    }
    const cgi = spawn(GIT_HTTP_BACKEND, [], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    req.on('data', (chunk: Buffer) => (record.requestBytes += chunk.length));
    req.pipe(cgi.stdin);
    cgi.stdin.on('error', () => undefined);
    let stderr = '';
    cgi.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    let head = Buffer.alloc(0);
    let headersSent = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (headersSent) {
        record.responseBytes += chunk.length;
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const parsed = parseCgiHead(head);
      if (!parsed) return;
      headersSent = true;
      record.status = parsed.status;
      res.writeHead(parsed.status, parsed.headers);
      record.responseBytes += parsed.body.length;
      res.write(parsed.body);
    });
    cgi.on('close', (code) => {
      if (!headersSent) {
        record.status = 500;
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`git http-backend failed (${code}): ${stderr}`);
        return;
      }
      res.end();
    });
    res.on('close', () => {
      if (cgi.exitCode === null) cgi.kill();
    });
  }

  /** The user name when the Basic credentials are the configured pair, else null. */
  private authenticate(header: string | undefined): string | null {
    const match = /^Basic\s+(.+)$/i.exec(header ?? '');
    if (!match?.[1]) return null;
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const sep = decoded.indexOf(':');
    if (sep < 0) return null;
    const [user, password] = [decoded.slice(0, sep), decoded.slice(sep + 1)];
    const expected = this.options.credential;
    if (password !== expected.password || (expected.username !== null && user !== expected.username)) return null;
    return user || 'git';
  }
}

/** CGI response head (`Status:` and headers, ended by an empty line), or null while incomplete. */
function parseCgiHead(buffer: Buffer): { status: number; headers: Record<string, string>; body: Buffer } | null {
  const crlf = buffer.indexOf('\r\n\r\n');
  const lf = buffer.indexOf('\n\n');
  const end = crlf >= 0 && (lf < 0 || crlf < lf) ? { at: crlf, length: 4 } : lf >= 0 ? { at: lf, length: 2 } : null;
  if (!end) return null;
  let status = 200;
  const headers: Record<string, string> = {};
  for (const line of buffer.subarray(0, end.at).toString('latin1').split(/\r?\n/)) {
    const sep = line.indexOf(':');
    if (sep < 0) continue;
    const name = line.slice(0, sep).trim();
    const value = line.slice(sep + 1).trim();
    if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 200;
    else headers[name.toLowerCase()] = value;
  }
  return { status, headers, body: buffer.subarray(end.at + end.length) };
}

/**
 * A server of its own for git backends, for tests that need no platform stand-in:
 * `const server = await new GitServer().mount('/acme/shop-web', backend).start()`, then clone
 * `${server.url}/acme/shop-web`.
 */
export class GitServer {
  private readonly mounts = new Map<string, GitHttpBackend>();
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private baseUrl = '';

  get url(): string {
    if (!this.baseUrl) throw new Error('git server not started');
    return this.baseUrl;
  }

  mount(pathPrefix: string, backend: GitHttpBackend): this {
    this.mounts.set(pathPrefix.replace(/\/+$/, ''), backend);
    return this;
  }

  async start(): Promise<this> {
    const server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://git').pathname;
      const route = routeGit(this.mounts, path);
      if (route) route.backend.handle(req, res, route.endpoint);
      else {
        res.writeHead(404).end();
        req.resume();
      }
    });
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
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
}

/** The backend mounted at a prefix of `path` and the git endpoint that follows it, or null. */
export function routeGit(mounts: ReadonlyMap<string, GitHttpBackend>, path: string): { backend: GitHttpBackend; endpoint: string } | null {
  for (const [prefix, backend] of mounts) {
    if (!path.startsWith(prefix)) continue;
    const endpoint = GitHttpBackend.endpointOf(path.slice(prefix.length));
    if (endpoint) return { backend, endpoint };
  }
  return null;
}
