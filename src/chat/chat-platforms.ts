import type { ChatPlatform } from './chat-platform.js';
import { gchatChatPlatform } from './platforms/gchat/gchat-chat-platform.js';
import { slackChatPlatform } from './platforms/slack/slack-chat-platform.js';
import { teamsChatPlatform } from './platforms/teams/teams-chat-platform.js';

/** Every chat platform the server can serve; adding one is adding its folder and a line here. */
export const CHAT_PLATFORMS: readonly ChatPlatform[] = [slackChatPlatform, teamsChatPlatform, gchatChatPlatform];

export function chatPlatformNamed(name: string): ChatPlatform | null {
  return CHAT_PLATFORMS.find((p) => p.name === name) ?? null;
}
