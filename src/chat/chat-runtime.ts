import type * as StateIoRedis from '@chat-adapter/state-ioredis';
import type * as ChatSdk from 'chat';

/** The Chat SDK and its store adapter, as loaded. */
export interface ChatRuntime {
  sdk: typeof ChatSdk;
  state: typeof StateIoRedis;
}

let loaded: ChatRuntime | null = null;
let loading: Promise<ChatRuntime> | null = null;

/**
 * The Chat SDK loads on first use: a server with no `chat:` platform never holds it (with its
 * Slack client it is ~40 MB and ~0.4 s of boot), as the model providers and the sandbox clients.
 */
export function loadChatRuntime(): Promise<ChatRuntime> {
  // A failed load is forgotten, so the next request tries again.
  loading ??= Promise.all([import('chat'), import('@chat-adapter/state-ioredis')]).then(
    ([sdk, state]) => (loaded = { sdk, state }),
    (error: unknown) => {
      loading = null;
      throw error;
    },
  );
  return loading;
}

/** The loaded runtime; only called where a Chat instance exists, which loaded it. */
export function chatRuntime(): ChatRuntime {
  if (!loaded) throw new Error('the Chat SDK is used before it was loaded');
  return loaded;
}
