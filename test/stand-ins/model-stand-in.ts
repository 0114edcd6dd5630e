import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { AnthropicMessagesFormat } from './model/anthropic-messages.js';
import { OpenAIChatFormat, openAIError } from './model/openai-chat.js';
import { OpenAIResponsesFormat } from './model/openai-responses.js';
import {
  type ErrorAnswer, isRecord, type ModelRequestView, type ModelWireFormat, type ResolvedTurn, type ScriptedTurn,
  type WireFormat, randomId,
} from './model/wire.js';
import { readBody } from './stand-in-server.js';

export type { ModelRequestView, ModelWireFormat, ScriptedToolCall, ScriptedTurn, TokenUsage, ViewMessage, ViewToolCall } from './model/wire.js';

/**
 * A language-model provider played by a real local HTTP server: OpenAI Chat Completions,
 * OpenAI / Azure OpenAI Responses and Anthropic Messages, in their real wire formats (JSON and
 * server-sent-event streams), replaying scripted turns. Routed by path suffix, so any prefix works
 * (`…/v1/responses`, `…/openai/responses`). See test/stand-ins/README.md.
 */

export interface ModelStandInOptions {
  /** The key every request must carry (`Authorization: Bearer`, Azure `api-key`, Anthropic `x-api-key`). Default `sk-stand-in`. */
  apiKey?: string;
  /** What `GET …/models` lists. Default `['stand-in-model']`. */
  models?: string[];
}

export interface ModelScript {
  /** Serve only requests whose raw body contains this string; absent: any request. */
  match?: string;
  turns: ScriptedTurn[];
}

/** A registered script: how far it got. */
export interface ScriptHandle {
  /** Turns not served yet. */
  readonly remaining: number;
  /** Requests it answered (its turns and the `done` answers after them). */
  readonly served: number;
}

export type ModelResponder = (request: ModelRequestView) => ScriptedTurn;

interface ScriptState {
  match: string | undefined;
  turns: ScriptedTurn[];
  served: number;
}

/** What a script answers once its turns are used up. */
export const DONE_TURN: ScriptedTurn = Object.freeze({ text: 'done' });

const DEFAULT_OUTPUT_TOKENS = 20;

export class ModelStandIn {
  readonly requests: ModelRequestView[] = [];
  readonly apiKey: string;
  private readonly models: string[];
  private readonly formats: { chat: OpenAIChatFormat; responses: OpenAIResponsesFormat; messages: AnthropicMessagesFormat };
  private scripts: ScriptState[] = [];
  private responder: ModelResponder | null = null;
  private aborted = 0;
  private server: Server | null = null;
  private origin = '';
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();

  private constructor(options: ModelStandInOptions) {
    this.apiKey = options.apiKey ?? 'sk-stand-in';
    this.models = options.models ?? ['stand-in-model'];
    this.formats = { chat: new OpenAIChatFormat(), responses: new OpenAIResponsesFormat(), messages: new AnthropicMessagesFormat() };
  }

  /** Listens on 127.0.0.1, port 0. */
  static async start(options: ModelStandInOptions = {}): Promise<ModelStandIn> {
    const standIn = new ModelStandIn(options);
    const server = createServer((req, res) => void standIn.handle(req, res));
    server.on('connection', (socket) => {
      standIn.sockets.add(socket);
      socket.on('close', () => standIn.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    standIn.server = server;
    standIn.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return standIn;
  }

  /** `http://127.0.0.1:<port>`: for another prefix (Azure: `${standIn.url}/openai`). */
  get url(): string {
    if (!this.origin) throw new Error('model stand-in not started');
    return this.origin;
  }

  /** `http://127.0.0.1:<port>/v1`, the agent's `base_url`. */
  get baseUrl(): string {
    return `${this.url}/v1`;
  }

  /** Requests whose client closed the connection before the answer was complete (aborted hangs, mostly). */
  get abortedRequests(): number {
    return this.aborted;
  }

  /**
   * Registers a scripted conversation. A request is served by the first registered script with
   * turns left whose `match` occurs in the raw body (or that has no `match`), which pops its next
   * turn; with none, by the responder (`respond`); with no responder either, by a plain `done`
   * text answer (also what a used-up script gives).
   */
  script(script: ModelScript): ScriptHandle {
    const state: ScriptState = { match: script.match, turns: [...script.turns], served: 0 };
    this.scripts.push(state);
    return {
      get remaining() {
        return state.turns.length;
      },
      get served() {
        return state.served;
      },
    };
  }

  /** A dynamic responder for requests no script with turns left serves (null removes it). */
  respond(responder: ModelResponder | null): void {
    this.responder = responder;
  }

  /** Every message text of every recorded request, one per line (unescaped; raw bodies are in `requests[i].body`). */
  allRequestText(): string {
    return this.requests.map((r) => r.text).filter(Boolean).join('\n');
  }

  /** The completion requests (not `GET …/models`), in order. */
  modelCalls(): ModelRequestView[] {
    return this.requests.filter((r) => r.format !== null && r.format !== 'models');
  }

  /** Forgets scripts, the responder, recorded requests and the aborted count. Open (hanging) requests stay open. */
  reset(): void {
    this.scripts = [];
    this.responder = null;
    this.requests.length = 0;
    this.aborted = 0;
  }

  /** Stops listening and drops every open connection (hanging requests included). */
  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  // ---- serving ----

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = Date.now();
    const body = await readBody(req).catch(() => null);
    if (body === null) return;
    const path = new URL(req.url ?? '/', 'http://stand-in').pathname;
    const method = req.method ?? 'GET';
    const view: ModelRequestView = {
      seq: this.requests.length, at, format: formatOf(method, path), method, path, headers: req.headers, body, json: parseJson(body),
      model: null, stream: false, tools: [], messages: [], text: '', status: null, aborted: false,
    };
    this.requests.push(view);
    res.on('close', () => {
      if (res.writableFinished) return;
      view.aborted = true;
      this.aborted++;
    });
    try {
      await this.serve(view, req.headers, res);
    } catch (error) {
      if (!res.headersSent) this.send(view, res, openAIError(500, `model stand-in: ${error instanceof Error ? error.message : String(error)}`));
      else res.destroy();
    }
  }

  private async serve(view: ModelRequestView, headers: IncomingHttpHeaders, res: ServerResponse): Promise<void> {
    if (view.format === null) {
      const answer = isAnthropicStyle(headers)
        ? this.formats.messages.error(404, `Not found: ${view.method} ${view.path}`)
        : openAIError(404, `Invalid URL (${view.method} ${view.path})`);
      this.send(view, res, answer);
      return;
    }
    if (view.format === 'models') {
      this.serveModels(view, headers, res);
      return;
    }
    const format: WireFormat = view.format === 'openai-chat' ? this.formats.chat : view.format === 'openai-responses' ? this.formats.responses : this.formats.messages;
    const refusal = this.authRefusal(format, headers);
    if (refusal) {
      this.send(view, res, refusal);
      return;
    }
    if (view.json === null) {
      this.send(view, res, format.error(400, 'We could not parse the JSON body of your request.'));
      return;
    }
    const parsed = format.parse(view.json);
    Object.assign(view, { model: parsed.model, stream: parsed.stream, tools: parsed.tools, messages: parsed.messages, text: parsed.messages.map((m) => m.text).filter(Boolean).join('\n') });
    if (parsed.historyError) {
      this.send(view, res, format.error(400, parsed.historyError));
      return;
    }
    const pick = this.pick(view);
    const turn = pick.turn;
    const unoffered = 'toolCalls' in turn ? turn.toolCalls.map((c) => c.name).filter((name) => !parsed.tools.includes(name)) : [];
    if (unoffered.length > 0) {
      const message = `model stand-in: the script calls tool(s) ${unoffered.map((n) => `'${n}'`).join(', ')} the request did not offer (offered: ${parsed.tools.join(', ') || 'none'})`;
      this.send(view, res, format.error(400, message));
      return;
    }
    pick.commit();
    if (turn.delayMs) {
      await this.sleep(turn.delayMs);
      if (res.destroyed) return;
    }
    if ('fault' in turn) {
      if (turn.fault === 'hang') return;
      if (turn.fault === 'rate-limit') {
        const answer = format.error(429, 'Rate limit reached (model stand-in). Please try again later.');
        this.send(view, res, { ...answer, headers: { ...answer.headers, 'retry-after': String(turn.retryAfterSeconds) } });
        return;
      }
      const status = turn.fault === 'server-error' ? (turn.status ?? 500) : 500;
      this.send(view, res, format.error(status, status === 529 ? 'Overloaded' : 'The server had an error while processing your request. Sorry about that!'));
      return;
    }
    const resolved = this.resolve(format, turn, view.body);
    if (parsed.stream) this.stream(view, res, format.events(resolved, view.json, parsed));
    else this.send(view, res, { status: 200, body: format.answer(resolved, view.json, parsed) });
  }

  /** The turn for a request, and how to consume it once it is known to be served. */
  private pick(view: ModelRequestView): { turn: ScriptedTurn; commit: () => void } {
    const matches = (s: ScriptState): boolean => s.match === undefined || view.body.includes(s.match);
    const live = this.scripts.find((s) => s.turns.length > 0 && matches(s));
    if (live) {
      return { turn: live.turns[0]!, commit: () => { live.turns.shift(); live.served++; } };
    }
    if (this.responder) return { turn: this.responder(view), commit: () => undefined };
    const usedUp = this.scripts.find(matches);
    return { turn: DONE_TURN, commit: () => { if (usedUp) usedUp.served++; } };
  }

  private resolve(format: WireFormat, turn: Exclude<ScriptedTurn, { fault: string }>, body: string): ResolvedTurn {
    const toolCalls = 'toolCalls' in turn ? turn.toolCalls.map((c) => ({ id: format.newToolCallId(), name: c.name, input: c.input })) : [];
    return {
      text: turn.text ?? '',
      toolCalls,
      usage: { inputTokens: turn.usage?.inputTokens ?? Math.ceil(body.length / 4), outputTokens: turn.usage?.outputTokens ?? DEFAULT_OUTPUT_TOKENS },
    };
  }

  /** The provider's refusal of the request's credentials, or null when they are right. */
  private authRefusal(format: WireFormat, headers: IncomingHttpHeaders): ErrorAnswer | null {
    if (format.name === 'anthropic-messages') {
      const key = header(headers, 'x-api-key');
      if (key === null) return format.error(401, 'x-api-key header is required');
      if (key !== this.apiKey) return format.error(401, 'invalid x-api-key');
      if (header(headers, 'anthropic-version') === null) return format.error(400, 'anthropic-version: header is required');
      return null;
    }
    const azureKey = header(headers, 'api-key');
    if (azureKey !== null) {
      return azureKey === this.apiKey ? null : format.error(401, 'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.', { azure: true });
    }
    const bearer = /^Bearer\s+(.+)$/i.exec(header(headers, 'authorization') ?? '')?.[1] ?? null;
    if (bearer === null) return format.error(401, "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).", { code: null });
    if (bearer !== this.apiKey) return format.error(401, `Incorrect API key provided: ${redact(bearer)}. You can find your API key at https://platform.openai.com/account/api-keys.`);
    return null;
  }

  /** `GET …/models`: Anthropic's shape when the request looks like Anthropic's (x-api-key / anthropic-version), else OpenAI's. */
  private serveModels(view: ModelRequestView, headers: IncomingHttpHeaders, res: ServerResponse): void {
    if (isAnthropicStyle(headers)) {
      const refusal = this.authRefusal(this.formats.messages, headers);
      if (refusal) return this.send(view, res, refusal);
      const data = this.models.map((id) => ({ id, type: 'model', display_name: id, created_at: '2025-01-01T00:00:00Z' }));
      return this.send(view, res, { status: 200, body: { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null } });
    }
    const refusal = this.authRefusal(this.formats.chat, headers);
    if (refusal) return this.send(view, res, refusal);
    const data = this.models.map((id) => ({ id, object: 'model', created: 1_735_689_600, owned_by: 'stand-in' }));
    this.send(view, res, { status: 200, body: { object: 'list', data } });
  }

  private send(view: ModelRequestView, res: ServerResponse, answer: ErrorAnswer): void {
    if (res.destroyed) return;
    view.status = answer.status;
    const payload = JSON.stringify(answer.body);
    res.writeHead(answer.status, { 'content-type': 'application/json', 'x-request-id': `req_${randomId(24)}`, ...answer.headers });
    res.end(payload);
  }

  private stream(view: ModelRequestView, res: ServerResponse, frames: string[]): void {
    if (res.destroyed) return;
    view.status = 200;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-request-id': `req_${randomId(24)}` });
    for (const frame of frames) res.write(frame);
    res.end();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.add(timer);
    });
  }
}

function formatOf(method: string, path: string): ModelWireFormat | null {
  const trimmed = path.replace(/\/+$/, '');
  if (method === 'POST' && trimmed.endsWith('/chat/completions')) return 'openai-chat';
  if (method === 'POST' && trimmed.endsWith('/responses')) return 'openai-responses';
  if (method === 'POST' && trimmed.endsWith('/messages')) return 'anthropic-messages';
  if (method === 'GET' && trimmed.endsWith('/models')) return 'models';
  return null;
}

function header(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  return typeof value === 'string' ? value : null;
}

function isAnthropicStyle(headers: IncomingHttpHeaders): boolean {
  return header(headers, 'x-api-key') !== null || header(headers, 'anthropic-version') !== null;
}

function redact(key: string): string {
  return key.length <= 8 ? '***' : `${key.slice(0, 3)}***${key.slice(-4)}`;
}

function parseJson(body: string): Record<string, unknown> | null {
  if (!body) return null;
  try {
    const value = JSON.parse(body) as unknown;
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}


