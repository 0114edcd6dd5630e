import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { Server } from 'socket.io';
import { StoreConnectionService } from '../store/store-connection.service.js';
import { HubEvent, RUNS_ROOM, runRoom } from './hub-socket.js';

const BLOCK_MS = 5000;
const RETRY_MS = 1000;

/**
 * Relays the live run feed (the store stream `svc:feed:runs`) to hub rooms: every entry to
 * `runs` subscribers and to the watchers of its run. Reads with a blocking XREAD on its own
 * connection; silent while the store is down (the database keeps everything).
 */
@Injectable()
export class HubFeedRelay implements OnApplicationShutdown {
  private readonly logger = new Logger('HubFeed');
  private reader: Redis | null = null;
  private stopped = false;

  constructor(private readonly store: StoreConnectionService) {}

  attach(server: Server): void {
    if (!this.store.client || this.reader) return;
    this.reader = this.store.client.duplicate({ maxRetriesPerRequest: null, enableOfflineQueue: true });
    this.reader.on('error', () => undefined);
    void this.loop(server, this.reader);
  }

  private async loop(server: Server, reader: Redis): Promise<void> {
    const key = this.store.key('feed', 'runs');
    let last = '$';
    while (!this.stopped) {
      try {
        const batches = await reader.xread('BLOCK', BLOCK_MS, 'STREAMS', key, last);
        for (const [, entries] of batches ?? []) {
          for (const [id, fields] of entries) {
            last = id;
            const entry = toEntry(fields);
            server.to(RUNS_ROOM).to(runRoom(entry.run)).emit(HubEvent.RunEvent, entry);
          }
        }
      } catch (error) {
        if (this.stopped) return;
        this.logger.debug(`feed read failed, retrying: ${(error as Error).message}`);
        await new Promise((r) => setTimeout(r, RETRY_MS));
      }
    }
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    this.reader?.disconnect(false);
  }
}

function toEntry(fields: string[]): Record<string, string> & { run: string } {
  const entry: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) entry[fields[i] as string] = fields[i + 1] as string;
  return entry as Record<string, string> & { run: string };
}
