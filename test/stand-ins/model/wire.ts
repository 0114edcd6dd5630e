import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * Types and helpers the language-model stand-in's wire formats share (model-stand-in.ts serves
 * them; openai-chat.ts, openai-responses.ts and anthropic-messages.ts speak them).
 */

/** Which API a request spoke, by path suffix; null: a path the stand-in does not serve. */
export type ModelWireFormat = 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'models';

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface ScriptedToolCall {
  name: string;
  input: Record<string, unknown>;
}

/** Wait this long before answering (any turn, faults included). */
interface Delayed {
  delayMs?: number;
}

/**
 * One model answer, scripted. Usage not given: input ≈ request body length / 4, output 20.
 * - `{ toolCalls, text? }`: an assistant turn calling tools (finish reason tool calls);
 * - `{ text }`: a plain answer (finish reason stop);
 * - `{ fault: 'rate-limit', retryAfterSeconds }`: 429 with `Retry-After` and the provider's error body;
 * - `{ fault: 'server-error', status? }`: a 5xx (500 by default) with the provider's error body;
 * - `{ fault: 'hang' }`: the request is read and never answered, until the client aborts (counted
 *   in `abortedRequests`) or the stand-in closes.
 */
export type ScriptedTurn =
  | ({ toolCalls: ScriptedToolCall[]; text?: string; usage?: Partial<TokenUsage> } & Delayed)
  | ({ text: string; usage?: Partial<TokenUsage> } & Delayed)
  | ({ fault: 'rate-limit'; retryAfterSeconds: number } & Delayed)
  | ({ fault: 'server-error'; status?: number } & Delayed)
  | ({ fault: 'hang' } & Delayed);

export interface ViewToolCall {
  id: string;
  name: string;
  input: unknown;
}

/** One message of a request's conversation, whatever the wire format, flattened to text. */
export interface ViewMessage {
  /** `tool`: a tool result (OpenAI `role: 'tool'`, Responses `function_call_output`, Anthropic `tool_result`). */
  role: 'system' | 'user' | 'assistant' | 'tool';
  text: string;
  /** The tool calls of an assistant message. */
  toolCalls: ViewToolCall[];
  /** The call a tool result answers; null for other roles. */
  toolCallId: string | null;
}

/** A request as the stand-in received and understood it (recorded in `requests`, handed to responders). */
export interface ModelRequestView {
  /** 0-based arrival order since start / reset. */
  seq: number;
  /** Arrival time, epoch ms. */
  at: number;
  format: ModelWireFormat | null;
  method: string;
  /** Path without the query string. */
  path: string;
  /** As received; credentials kept so tests can check them. */
  headers: IncomingHttpHeaders;
  /** The raw body text. */
  body: string;
  /** The parsed body; null when it was empty or not JSON. */
  json: Record<string, unknown> | null;
  model: string | null;
  stream: boolean;
  /** Names of the tools offered. */
  tools: string[];
  messages: ViewMessage[];
  /** Every message's text, one per line (system prompt, user text, assistant text, tool results). */
  text: string;
  /** The HTTP status answered; null while unanswered (hang, delay) or when the client went away first. */
  status: number | null;
  /** The client closed the connection before the answer was complete. */
  aborted: boolean;
}

/** What a wire format makes of a request body. */
export interface ParsedRequest {
  model: string | null;
  stream: boolean;
  tools: string[];
  messages: ViewMessage[];
  /** The real API's 400 message for a conversation it would refuse (a tool call without its result, …), else null. */
  historyError: string | null;
}

/** A scripted answer made concrete: ids generated, usage decided. */
export interface ResolvedTurn {
  text: string;
  toolCalls: ViewToolCall[];
  usage: TokenUsage;
}

export interface ErrorAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** One provider API's request and answer shapes. */
export interface WireFormat {
  readonly name: Exclude<ModelWireFormat, 'models'>;
  parse(json: Record<string, unknown>): ParsedRequest;
  newToolCallId(): string;
  /** An error in the provider's JSON shape. `azure`: the request authenticated Azure-style (`api-key`). */
  error(status: number, message: string, options?: { azure?: boolean; code?: string | null }): ErrorAnswer;
  /** The non-streaming answer body. */
  answer(turn: ResolvedTurn, json: Record<string, unknown>, parsed: ParsedRequest): unknown;
  /** The streaming answer: server-sent event frames, in order. */
  events(turn: ResolvedTurn, json: Record<string, unknown>, parsed: ParsedRequest): string[];
}

// ---- helpers ----

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Random base62 text, as the providers' ids look (`call_…`, `toolu_01…`). */
export function randomId(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const byte of bytes) out += ALPHABET[byte % ALPHABET.length];
  return out;
}

export function randomHex(length: number): string {
  return randomBytes(Math.ceil(length / 2)).toString('hex').slice(0, length);
}

/** `data:` (and `event:`) frame of a server-sent event stream. */
export function sseFrame(data: unknown, event?: string): string {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  return `${event ? `event: ${event}\n` : ''}data: ${payload}\n\n`;
}

/** Splits text into pieces of at most `size` characters (at least one piece, possibly empty). */
export function pieces(text: string, size = 12): string[] {
  if (text.length <= size) return [text];
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** Text of a content value: a string, or an array of parts of which those with `text` count. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  return asArray(content)
    .map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : ''))
    .filter((t) => t.length > 0)
    .join('\n');
}

/** A tool call's arguments as sent (a JSON string in the OpenAI formats). */
export function parseArguments(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

export function message(role: ViewMessage['role'], text: string, extra: Partial<ViewMessage> = {}): ViewMessage {
  return { role, text, toolCalls: [], toolCallId: null, ...extra };
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
