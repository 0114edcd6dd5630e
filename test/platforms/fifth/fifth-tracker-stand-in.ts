import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One ticket on the fifth platform's tracker. */
export interface FifthTicket {
  labels: string[];
  status: string;
  title: string;
  version: number;
  comments: { id: string; body: string }[];
}

/**
 * The fifth platform's tracker, a small HTTP server of the test's own design: tickets by key,
 * labels replaced as a whole under `If-Match: <version>` (412 when another write came first),
 * comments. Every request needs `Authorization: Bearer <token>`. It records what it was asked.
 */
export class FifthTrackerStandIn {
  readonly tickets = new Map<string, FifthTicket>();
  readonly requests: { method: string; path: string }[] = [];
  private server: Server | null = null;
  url = '';

  constructor(private readonly token: string) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    this.requests.push({ method: req.method ?? '', path });
    const send = (status: number, body?: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body === undefined ? '' : JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${this.token}`) return send(401, { error: 'unauthorized' });
    const match = /^\/api\/tickets\/([A-Z]+-\d+)(\/labels|\/comments)?$/.exec(path);
    const ticket = match ? this.tickets.get(match[1]!) : undefined;
    if (!match || !ticket) return send(404, { error: 'no such ticket' });
    const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> : {};
    if (req.method === 'GET' && !match[2]) return send(200, { key: match[1], labels: ticket.labels, status: ticket.status, title: ticket.title, version: ticket.version });
    if (req.method === 'PUT' && match[2] === '/labels') {
      if (req.headers['if-match'] !== String(ticket.version)) return send(412, { error: 'changed since read' });
      ticket.labels = body['labels'] as string[];
      ticket.version += 1;
      return send(200, { version: ticket.version });
    }
    if (req.method === 'POST' && match[2] === '/comments') {
      const comment = { id: String(ticket.comments.length + 1), body: String(body['body']) };
      ticket.comments.push(comment);
      return send(201, comment);
    }
    if (req.method === 'GET' && match[2] === '/comments') return send(200, ticket.comments);
    if (req.method === 'PUT' && !match[2]) {
      ticket.status = String(body['status']);
      return send(200, {});
    }
    return send(405, { error: 'not allowed' });
  }
}
