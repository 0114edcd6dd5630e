import { Injectable } from '@nestjs/common';
import type { Adapter, Chat } from 'chat';

/** The current Chat SDK instance (rebuilt when `chat:` changes), shared without a dependency cycle. */
@Injectable()
export class ChatInstanceHolder {
  chat: Chat | null = null;
  /** Builds the instance when none exists yet (set by the bot service: after a restart, a followed run is edited before any chat request came in). */
  builder: (() => Promise<Chat | null>) | null = null;

  /** The platform's adapter, building the instance first when there is none. */
  async adapterFor(platform: string): Promise<Adapter | null> {
    if (!this.chat && this.builder) await this.builder().catch(() => null);
    return this.adapter(platform);
  }

  adapter(platform: string): Adapter | null {
    try {
      return this.chat?.getAdapter(platform) ?? null;
    } catch {
      return null;
    }
  }
}
