import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { Server } from 'socket.io';
import { RUN_CHANGES_STREAM } from '../runs/changes/run-change-feed.js';
import { StoreConnectionService } from '../store/store-connection.service.js';
import { HubEvent, RUNS_ROOM, runRoom } from './hub-socket.js';

const BLOCK_MS = 5000;
const RETRY_MS = 1000;

type Fields = Record<string, string>;

/**
 * Relays the live run feeds to hub rooms, each entry to `runs` subscribers and to the watchers of
 * its run (a socket in both gets it once): the event stream `svc:feed:runs` as `run.event`, and
 * `svc:feed:run-changes` as `run.changed {run}`, whose Run the changing replica already read (no
 * database read here). Reads both with one blocking XREAD on its own connection; silent while the
 * store is down (the database keeps everything).
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
    const events = this.store.key('feed', 'runs');
    const changes = this.store.key(...RUN_CHANGES_STREAM);
    const last: Record<string, string> = { [events]: '$', [changes]: '$' };
    while (!this.stopped) {
      try {
        const batches = await reader.xread('BLOCK', BLOCK_MS, 'STREAMS', events, changes, last[events] as string, last[changes] as string);
        // With no dashboard connected there is no one to tell: an entry is not even decoded (on a
        // busy server that is one encoding per claim, for empty rooms).
        const listened = server.engine.clientsCount > 0;
        for (const [key, entries] of batches ?? []) {
          if (!listened) {
            last[key] = entries.at(-1)?.[0] ?? last[key]!;
            continue;
          }
          for (const [id, fields] of entries) {
            last[key] = id;
            if (key === changes) this.relayChange(server, toFields(fields));
            else this.relayEvent(server, toFields(fields));
          }
        }
      } catch (error) {
        if (this.stopped) return;
        this.logger.debug(`feed read failed, retrying: ${(error as Error).message}`);
        await new Promise((r) => setTimeout(r, RETRY_MS));
      }
    }
  }

  private relayEvent(server: Server, entry: Fields): void {
    if (typeof entry['run'] !== 'string') return;
    server.to(RUNS_ROOM).to(runRoom(entry['run'])).emit(HubEvent.RunEvent, toRunEvent(entry));
  }

  /** A malformed entry (anyone who can write the store can write one) is skipped, never thrown. */
  private relayChange(server: Server, entry: Fields): void {
    const runId = entry['id'];
    let run: unknown;
    try {
      run = JSON.parse(entry['run'] ?? '');
    } catch {
      run = null;
    }
    if (typeof runId !== 'string' || (run as { id?: unknown } | null)?.id !== runId) {
      this.logger.debug('skipped a malformed run.changed entry');
      return;
    }
    server.to(RUNS_ROOM).to(runRoom(runId)).emit(HubEvent.RunChanged, { run });
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    this.reader?.disconnect(false);
  }
}

/**
 * The stream holds strings; `run.event` carries the event's own shape (as `GET /api/runs/:id/events`
 * answers it): `seq` a number, or null for a ticket transition (on the feed, but no stored event
 * of the run), `sandbox` null when none. A client merging live events with the API's pages by
 * `seq` would otherwise hold "8" beside 8.
 */
function toRunEvent(entry: Fields): Record<string, unknown> {
  const seq = Number(entry['seq']);
  return { ...entry, seq: entry['seq'] && Number.isSafeInteger(seq) ? seq : null, sandbox: entry['sandbox'] || null };
}

function toFields(fields: string[]): Fields {
  const entry: Fields = {};
  for (let i = 0; i + 1 < fields.length; i += 2) entry[fields[i] as string] = fields[i + 1] as string;
  return entry;
}
