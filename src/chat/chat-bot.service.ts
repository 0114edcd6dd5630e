import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Adapter, Chat, Logger as ChatLogger, Postable, Thread } from 'chat';
import { withTimeout } from '../common/with-timeout.js';
import { ConfigService } from '../config/config.service.js';
import { type Finding, finding, FindingSubsystem } from '../findings/finding.js';
import { FindingsService } from '../findings/findings.service.js';
import { StoreConnectionService } from '../store/store-connection.service.js';
import type { ChatPlatform, ChatPlatformBlock } from './chat-platform.js';
import { CHAT_PLATFORMS, chatPlatformNamed } from './chat-platforms.js';
import { isSet } from './platforms/raw-fields.js';
import { ChatFollower } from './chat-follower.service.js';
import { ChatFollowsService } from './chat-follows.service.js';
import { ChatInstanceHolder } from './chat-instance.holder.js';
import { ChatIntentsService } from './chat-intents.service.js';
import { actionKind, toPostable } from './chat-postable.js';
import { loadChatRuntime } from './chat-runtime.js';
import type { ChatReplies, ChatTurn } from './chat-turn.js';

const FINDINGS_SOURCE = 'chat';
/** Handlers still running at shutdown get this long to finish. */
const DRAIN_MS = 5_000;

/** What a chat route answers. */
export interface ChatAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer | string;
}

const plain = (status: number, body: string): ChatAnswer => ({ status, headers: { 'content-type': 'text/plain; charset=utf-8' }, body });

/**
 * The Chat SDK behind `/chat/<platform>`: which platforms are served (a configured block with
 * nothing missing, and the store for the SDK's state), the Chat instance with one adapter per
 * served platform (rebuilt when `chat:` changes), and the order of a request: verify the
 * platform's way (401), drop a redelivered event (by its id, in the store), then hand the raw
 * request to the SDK, which acknowledges at once and runs the handler in the background.
 */
@Injectable()
export class ChatBotService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Chat');
  private fingerprint = '';
  private readonly tasks = new Set<Promise<unknown>>();
  private building: { fingerprint: string; chat: Promise<Chat> } | null = null;

  constructor(
    private readonly config: ConfigService,
    private readonly findings: FindingsService,
    private readonly store: StoreConnectionService,
    private readonly holder: ChatInstanceHolder,
    private readonly intents: ChatIntentsService,
    private readonly follows: ChatFollowsService,
    private readonly follower: ChatFollower,
  ) {}

  onApplicationBootstrap(): void {
    this.report();
    this.config.onReload(() => this.report());
    this.holder.builder = async () => (this.served().length > 0 && this.store.isConnected ? this.chat() : null);
    if (this.served().length > 0) this.follower.start();
  }

  /** Platforms whose block is complete (served when the store is there too). */
  private served(): { platform: ChatPlatform; block: ChatPlatformBlock }[] {
    const blocks = this.config.config.chat.platforms;
    return CHAT_PLATFORMS.flatMap((platform) => {
      const block = blocks[platform.name];
      return block && platform.problems(block).length === 0 ? [{ platform, block }] : [];
    });
  }

  /** Findings: a half-configured platform (what is missing), and chat without the store. */
  private report(): void {
    const out: Finding[] = [];
    const blocks = this.config.config.chat.platforms;
    for (const [name, block] of Object.entries(blocks)) {
      const platform = chatPlatformNamed(name);
      if (!platform) continue;
      for (const problem of platform.problems(block)) {
        // A key that is set but unusable (Google Chat's credentials that are no key file) is not "not set".
        const state = isSet(block[problem.key]) ? 'is not usable' : 'is not set';
        out.push(finding(FindingSubsystem.Chat, 'blocking', `${platform.title}: chat.${name}.${problem.key} ${state}: ${problem.reason}`, { field: `chat.${name}.${problem.key}` }));
      }
    }
    if (this.served().length > 0 && !this.store.isConfigured) {
      out.push(finding(FindingSubsystem.Chat, 'blocking', 'chat needs the store (KVSTORE_URL) for its thread state and redelivery checks: chat requests are answered 503 until it is set', { field: 'KVSTORE_URL' }));
    }
    this.findings.set(FINDINGS_SOURCE, out);
    if (this.served().length > 0) this.follower.start();
  }

  async handle(name: string, headers: IncomingHttpHeaders, rawBody: Buffer, url: string): Promise<ChatAnswer> {
    const served = this.served().find((s) => s.platform.name === name);
    if (!served) return plain(404, `no chat platform ${name} is configured here`);
    const { platform, block } = served;
    const verdict = await platform.verify(block, headers, rawBody, Date.now());
    if (!verdict.ok) return plain(401, `Unauthorized: ${verdict.reason}`);
    // Checked now, not only by the periodic probe: a store that just came back serves this request.
    if (!this.store.isConnected && !(await this.store.check())) return plain(503, 'store_unavailable');
    const eventId = platform.deliveryId(headers, rawBody);
    if (eventId !== null && !(await this.follows.firstDelivery(platform.name, eventId).catch(() => true))) {
      return plain(200, 'ok');
    }
    const chat = await this.chat();
    // Behind a proxy the request's own URL is not where the platform reaches us: Google Chat's card
    // buttons call back the URL the adapter saw, so the public address (chat.dashboard_url) wins.
    const base = this.config.config.chat.dashboard_url;
    const request = new Request(base ? new URL(new URL(url).pathname, base.endsWith('/') ? base : `${base}/`).toString() : url, { method: 'POST', headers: toHeaders(headers), body: new Uint8Array(rawBody) });
    const response = await chat.webhooks[platform.name]!(request, { waitUntil: (task) => this.track(task) });
    const body = Buffer.from(await response.arrayBuffer());
    const outHeaders: Record<string, string> = {};
    response.headers.forEach((value, key) => { outHeaders[key] = value; });
    return { status: response.status, headers: outHeaders, body };
  }

  private track(task: Promise<unknown>): void {
    const tracked = task.catch((error: Error) => this.logger.warn(`chat handler failed: ${error.message}`)).finally(() => this.tasks.delete(tracked));
    this.tasks.add(tracked);
  }

  /** The Chat instance for the served platforms as configured now (one build at a time: concurrent requests share it). */
  private chat(): Promise<Chat> {
    const served = this.served();
    const fingerprint = createHash('sha256').update(JSON.stringify(served.map((s) => [s.platform.name, s.block]))).digest('hex');
    if (this.holder.chat && fingerprint === this.fingerprint) return Promise.resolve(this.holder.chat);
    if (this.building?.fingerprint === fingerprint) return this.building.chat;
    const chat = this.build(served, fingerprint);
    this.building = { fingerprint, chat };
    const clear = () => {
      if (this.building?.chat === chat) this.building = null;
    };
    chat.then(clear, clear);
    return chat;
  }

  private async build(served: { platform: ChatPlatform; block: ChatPlatformBlock }[], fingerprint: string): Promise<Chat> {
    const { sdk, state } = await loadChatRuntime();
    const logger = chatLogger(this.logger);
    const adapters: Record<string, Adapter> = Object.fromEntries(
      await Promise.all(served.map(async ({ platform, block }) => [platform.name, await platform.createAdapter(block, logger)] as const)),
    );
    const chat = new sdk.Chat({
      userName: 'pipeline-service',
      adapters,
      state: state.createIoRedisState({ client: this.store.client!, keyPrefix: this.store.key('chat-sdk'), logger }),
      logger,
      concurrency: 'concurrent',
      dedupeTtlMs: 24 * 3600_000,
    });
    const onMessage = (addressed: boolean | null) => async (thread: Thread<unknown>, message: { text: string; raw: unknown; isMention?: boolean }) => {
      const turn = this.turn(thread.adapter.name, message.raw, message.text, this.threadReplies(thread), addressed ?? message.isMention === true);
      if (turn) await this.intents.message(turn);
    };
    chat.onNewMention(onMessage(true));
    chat.onDirectMessage(onMessage(true));
    chat.onSubscribedMessage(onMessage(null));
    chat.onSlashCommand(async (event) => {
      const turn = this.turn(event.adapter.name, event.raw, event.text, this.channelReplies(event.channel), true);
      if (turn) await this.intents.message(turn);
    });
    chat.onAction(async (event) => {
      const replies = event.thread ? this.threadReplies(event.thread) : null;
      const turn = replies ? this.turn(event.adapter.name, event.raw, '', replies, true) : null;
      if (turn) await this.intents.action(turn, actionKind(event.actionId), event.value);
    });
    const previous = this.holder.chat;
    this.holder.chat = chat;
    this.fingerprint = fingerprint;
    if (previous) void previous.shutdown().catch(() => undefined);
    return chat;
  }

  private turn(platformName: string, raw: unknown, text: string, replies: ChatReplies, addressed: boolean): ChatTurn | null {
    const platform = chatPlatformNamed(platformName);
    const origin = platform?.originOf(raw) ?? null;
    if (!platform || !origin) {
      this.logger.warn(`a ${platformName} request without a user, workspace or channel was ignored`);
      return null;
    }
    return { platform, origin, text, replies, addressed };
  }

  private threadReplies(thread: Thread<unknown>): ChatReplies {
    return {
      threadId: thread.id,
      post: async (content) => {
        const sent = await thread.post(toPostable(content));
        return { threadId: sent.threadId || thread.id, messageId: sent.id };
      },
      subscribe: (threadId) => this.subscribe(threadId),
    };
  }

  /** A command has no thread: its first reply starts one in the channel, and later replies go there. */
  private channelReplies(channel: Postable): ChatReplies {
    let threadId: string | null = null;
    return {
      get threadId() {
        return threadId;
      },
      post: async (content) => {
        const sent = threadId && this.holder.chat ? await this.holder.chat.thread(threadId).post(toPostable(content)) : await channel.post(toPostable(content));
        threadId ??= sent.threadId;
        return { threadId: sent.threadId, messageId: sent.id };
      },
      subscribe: (id) => this.subscribe(id),
    };
  }

  private async subscribe(threadId: string): Promise<void> {
    await this.holder.chat?.getState().subscribe(threadId);
  }

  async onApplicationShutdown(): Promise<void> {
    await withTimeout(Promise.allSettled([...this.tasks]), DRAIN_MS, 'chat handlers').catch(() => undefined);
    await this.holder.chat?.shutdown().catch(() => undefined);
  }
}

function toHeaders(headers: IncomingHttpHeaders): Headers {
  const out = new Headers();
  for (const [key, value] of Object.entries(headers)) {
    if (value === undefined || key.startsWith(':') || key === 'content-length' || key === 'host' || key === 'connection' || key === 'transfer-encoding') continue;
    for (const v of Array.isArray(value) ? value : [value]) out.append(key, v);
  }
  return out;
}

/** The SDK's logger onto Nest's (the SDK logs at info for every request: kept at debug). */
function chatLogger(logger: Logger): ChatLogger {
  const make = (prefix: string): ChatLogger => ({
    child: (p) => make(`${prefix}${p}:`),
    debug: (m) => logger.debug(`${prefix}${m}`),
    info: (m) => logger.debug(`${prefix}${m}`),
    warn: (m, ...args) => logger.warn(`${prefix}${m}${args.length ? ` ${safe(args)}` : ''}`),
    error: (m, ...args) => logger.error(`${prefix}${m}${args.length ? ` ${safe(args)}` : ''}`),
  });
  return make('');
}

/** Error details without request bodies or tokens: only messages. */
function safe(args: unknown[]): string {
  return args.map((a) => (a instanceof Error ? a.message : a && typeof a === 'object' && 'error' in a ? String((a as { error: unknown }).error) : '')).filter(Boolean).join(' ');
}
