import type { ChatOrigin, ChatPlatform } from './chat-platform.js';
import type { ChatContent } from './run-status-text.js';

/** Where a turn's replies go, whatever the platform. */
export interface ChatReplies {
  /** The thread the turn happened in; null for a command outside any thread. */
  readonly threadId: string | null;
  /** Posts a message (in the thread; a command's first reply starts one in the channel). */
  post(content: ChatContent): Promise<{ threadId: string; messageId: string }>;
  /** From now on every message in the thread reaches the service (answers, cancel, design turns). */
  subscribe(threadId: string): Promise<void>;
}

/** One message, command or click, verified and attributed. */
export interface ChatTurn {
  platform: ChatPlatform;
  origin: ChatOrigin;
  text: string;
  replies: ChatReplies;
  /**
   * Said to the service (a mention, a direct message, a command, a click), not merely written in
   * a thread it follows: only then does unrecognised text get an answer (or reach the model).
   */
  addressed: boolean;
}
