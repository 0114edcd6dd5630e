import type { IncomingHttpHeaders } from 'node:http';
import type { Adapter, Logger } from 'chat';

/** A chat platform's block under `chat:`, as read (key → resolved value). */
export type ChatPlatformBlock = Readonly<Record<string, string | null>>;

/** Why a request was refused before anything in it was read (answered 401). */
export type ChatVerdict = { ok: true } | { ok: false; reason: string };

/** Where a message, a click or a command came from, in the platform's own ids. */
export interface ChatOrigin {
  /** Workspace (Slack team), tenant (Teams) or the domain-less `-` where the platform has none. */
  workspace: string;
  user: string;
  /** The channel, space or conversation it was written in. */
  channel: string;
}

/** One missing or contradictory key of a platform's block (a finding, and the platform is not served). */
export interface ChatBlockProblem {
  key: string;
  reason: string;
}

/**
 * One chat platform, as the core sees it: everything that differs between platforms lives in an
 * implementation of this (one folder per platform under `platforms/`), registered in
 * `chat-platforms.ts`. The core never names a platform.
 */
export interface ChatPlatform {
  /** The route (`/chat/<name>`), the block under `chat:` and the principal's prefix. */
  readonly name: string;
  /** Human name in findings, replies and docs. */
  readonly title: string;
  /** What the block lacks for the platform to be served; empty when it can be. */
  problems(block: ChatPlatformBlock): ChatBlockProblem[];
  /** Verifies the request the platform's own way, over the raw bytes, before anything is read. */
  verify(block: ChatPlatformBlock, headers: IncomingHttpHeaders, rawBody: Buffer, nowMs: number): Promise<ChatVerdict>;
  /** The id a redelivery of this request repeats (null: the platform does not redeliver it). */
  deliveryId(headers: IncomingHttpHeaders, rawBody: Buffer): string | null;
  /** Loads the platform's adapter package (once; `createAdapter` needs it loaded). */
  loadAdapter(): Promise<void>;
  /** The Chat SDK adapter, configured from the block (base URLs included). */
  createAdapter(block: ChatPlatformBlock, logger: Logger): Adapter;
  /** Who wrote and where, from the adapter's raw message, action or slash-command payload. */
  originOf(raw: unknown): ChatOrigin | null;
  /** The API base the service calls (diagnostics' target; no credentials in it). */
  apiTarget(block: ChatPlatformBlock): string;
  /** One read-only authenticated round trip (diagnostics' probe); throws why it failed. */
  probe(block: ChatPlatformBlock, timeoutMs: number): Promise<void>;
}
