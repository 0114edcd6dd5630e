import type * as StateModule from '@chat-adapter/state-ioredis';
import type * as ChatModule from 'chat';
import type { ChatPlatform } from './chat-platform.js';

/**
 * The Chat SDK (with its Markdown stack) and the platforms' adapters are loaded on first use, not
 * at boot: a server without `chat:` never loads them (issue 31, boot time and memory). A request
 * to `/chat/<platform>` awaits `loadChatSdk` before anything of the SDK runs; the follower only
 * writes through an adapter of an instance built after that.
 */
export interface ChatSdk {
  chat: typeof ChatModule;
  state: typeof StateModule;
}

let loaded: ChatSdk | null = null;
let loading: Promise<ChatSdk> | null = null;

export function loadChatSdk(platforms: readonly ChatPlatform[] = []): Promise<ChatSdk> {
  loading ??= Promise.all([import('chat'), import('@chat-adapter/state-ioredis')])
    .then(([chat, state]) => (loaded = { chat, state }))
    .catch((error: unknown) => {
      loading = null; // a failed load is tried again by the next request
      throw error;
    });
  return Promise.all([loading, ...platforms.map((p) => p.loadAdapter())]).then(([sdk]) => sdk);
}

/** The loaded SDK; a programming error (not a request's) when used before `loadChatSdk`. */
export function chatSdk(): ChatSdk {
  if (!loaded) throw new Error('the Chat SDK is used before loadChatSdk() finished');
  return loaded;
}
