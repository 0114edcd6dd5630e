import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { StoreConnectionService } from '../store/store-connection.service.js';
import { TicketLifecycleService } from '../tickets/ticket-lifecycle.service.js';
import { RunEventKind } from '../pipelines/run-event-kind.js';

/** Entries kept on the live feed stream (approximate trim). */
const FEED_MAX_LENGTH = 10_000;

export interface FeedEntry {
  run: string;
  seq: number | null;
  at: string;
  kind: RunEventKind;
  sandbox: string | null;
  text: string;
}

/**
 * The live run feed: a store stream (`svc:feed:runs`) the hub reads with XREAD. Every run event
 * and every ticket transition goes on it. Best effort: while the store is down the feed is
 * silent and the database still has everything.
 */
@Injectable()
export class RunFeedPublisher implements OnApplicationBootstrap {
  constructor(
    private readonly store: StoreConnectionService,
    private readonly lifecycle: TicketLifecycleService,
  ) {}

  get key(): string {
    return this.store.key('feed', 'runs');
  }

  onApplicationBootstrap(): void {
    if (!this.store.isConfigured) return;
    this.lifecycle.onTransition((t) => this.publish({
      run: t.runId, seq: null, at: new Date().toISOString(), kind: RunEventKind.State, sandbox: null,
      text: `${t.key.ticket}: ${t.from} → ${t.to} (${t.trigger})${t.error ? `: ${t.error}` : ''}`,
    }));
  }

  publish(entry: FeedEntry): void {
    const client = this.store.client;
    if (!client || !this.store.isConnected) return;
    void client.xadd(this.key, 'MAXLEN', '~', String(FEED_MAX_LENGTH), '*',
      'run', entry.run, 'seq', String(entry.seq ?? ''), 'at', entry.at, 'kind', entry.kind,
      'sandbox', entry.sandbox ?? '', 'text', entry.text).catch(() => undefined);
  }
}
