import { Injectable } from '@nestjs/common';
import type { Adapter, Chat } from 'chat';

/** The current Chat SDK instance (rebuilt when `chat:` changes), shared without a dependency cycle. */
@Injectable()
export class ChatInstanceHolder {
  chat: Chat | null = null;

  adapter(platform: string): Adapter | null {
    try {
      return this.chat?.getAdapter(platform) ?? null;
    } catch {
      return null;
    }
  }
}
