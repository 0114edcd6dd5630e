import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { LIVE_RUN_STATES } from '../database/entities/run.entity.js';
import { RunChangeAudience } from '../runs/changes/run-change-audience.js';
import { RUN_CHANGES_STREAM } from '../runs/changes/run-change-feed.js';
import type { Run } from '../runs/resource/run-resource.js';
import { StoreConnectionService } from '../store/store-connection.service.js';
import { type FollowRecord, ChatFollowsService } from './chat-follows.service.js';
import { ChatInstanceHolder } from './chat-instance.holder.js';
import { toPostable } from './chat-postable.js';
import { ChatRunViews } from './chat-run-views.service.js';

/** At most one edit of a message this often (Slack's chat.update allows about one a second per channel). */
export const MIN_EDIT_INTERVAL_MS = 1_000;
const BLOCK_MS = 5_000;
const RETRY_MS = 1_000;
const AUDIENCE_REFRESH_MS = 1_000;

interface Pending {
  lastAt: number;
  timer: NodeJS.Timeout | null;
  run: Run | null;
}

/**
 * Keeps each followed run's one message up to date: reads `run.changed` from the store feed the
 * hub relays (so any replica's change reaches it), renders the run and edits the message — never
 * a message per event, at most one edit per message a second (the last state always lands, a
 * final one at once), the same text never twice, and one replica per edit (a store mark).
 */
@Injectable()
export class ChatFollower implements OnApplicationShutdown {
  private readonly logger = new Logger('ChatFollower');
  private reader: Redis | null = null;
  private stopped = false;
  private following = 0;
  private audienceTimer: NodeJS.Timeout | null = null;
  private readonly pending = new Map<string, Pending>();
  /** Platform API calls made to keep messages up to date (the bench reads it). */
  edits = 0;

  constructor(
    private readonly store: StoreConnectionService,
    private readonly follows: ChatFollowsService,
    private readonly views: ChatRunViews,
    private readonly holder: ChatInstanceHolder,
    private readonly audience: RunChangeAudience,
  ) {}

  /** Started by ChatBotService once a platform is served. */
  start(): void {
    if (!this.store.client || this.reader) return;
    // run.changed is only published while someone listens: a followed run is someone.
    this.audience.watchLocal(() => this.following > 0);
    this.audienceTimer = setInterval(() => void this.countFollowing(), AUDIENCE_REFRESH_MS);
    this.audienceTimer.unref();
    this.reader = this.store.client.duplicate({ maxRetriesPerRequest: null, enableOfflineQueue: true });
    this.reader.on('error', () => undefined);
    void this.loop(this.reader);
  }

  private async countFollowing(): Promise<void> {
    if (!this.store.isConnected) return;
    const before = this.following;
    this.following = await this.follows.followedCount().catch(() => this.following);
    if (before === 0 && this.following > 0) this.audience.listening();
  }

  /**
   * A run is about to be followed: run.changed must be published from its first change on (the
   * audience is otherwise learnt within a second, and a quick run can end inside that second).
   */
  willFollow(): void {
    this.following = Math.max(this.following, 1);
    this.audience.listening();
  }

  /** Re-renders the run now (e.g. after an answer moved the thread's message to the next attempt). */
  async refresh(runId: string, note: string | null = null): Promise<void> {
    this.willFollow();
    const view = await this.views.content(runId, note);
    if (!view) return;
    for (const follower of await this.follows.followers(runId)) await this.write(view.run, follower, view.content);
  }

  private async loop(reader: Redis): Promise<void> {
    const stream = this.store.key(...RUN_CHANGES_STREAM);
    let last = '$';
    while (!this.stopped) {
      try {
        const batches = await reader.xread('BLOCK', BLOCK_MS, 'STREAMS', stream, last);
        for (const [, entries] of batches ?? []) {
          for (const [id, fields] of entries) {
            last = id;
            const run = parseRun(fields);
            if (run) this.changed(run);
          }
        }
      } catch (error) {
        if (this.stopped) return;
        this.logger.debug(`feed read failed, retrying: ${(error as Error).message}`);
        await new Promise((r) => setTimeout(r, RETRY_MS));
      }
    }
  }

  private changed(run: Run): void {
    const entry = this.pending.get(run.id) ?? { lastAt: 0, timer: null, run: null };
    this.pending.set(run.id, entry);
    entry.run = run;
    const final = !LIVE_RUN_STATES.includes(run.state);
    const wait = final ? 0 : entry.lastAt + MIN_EDIT_INTERVAL_MS - Date.now();
    if (wait <= 0) {
      if (entry.timer) clearTimeout(entry.timer);
      entry.timer = null;
      void this.flush(run.id);
    } else if (!entry.timer) {
      entry.timer = setTimeout(() => {
        entry.timer = null;
        void this.flush(run.id);
      }, wait);
      entry.timer.unref();
    }
  }

  private async flush(runId: string): Promise<void> {
    const entry = this.pending.get(runId);
    const run = entry?.run;
    if (!entry || !run) return;
    entry.run = null;
    entry.lastAt = Date.now();
    try {
      const followers = await this.follows.followers(runId);
      if (followers.length > 0) {
        const view = await this.views.content(run);
        for (const follower of followers) await this.write(run, follower, view!.content);
      }
      if (!LIVE_RUN_STATES.includes(run.state)) {
        // Ended: nobody needs its changes any more (also when its last follower moved on).
        await this.follows.ended(runId);
        this.pending.delete(runId);
      } else if (followers.length === 0 && !entry.timer) {
        this.pending.delete(runId);
      }
    } catch (error) {
      this.logger.warn(`message of run ${runId} not updated: ${(error as Error).message}`);
    }
  }

  private async write(run: Run, follower: FollowRecord, content: { text: string; buttons: { label: string; value: string }[] }): Promise<void> {
    if (follower.text === content.text) return;
    const adapter = await this.holder.adapterFor(follower.platform);
    if (!adapter) return;
    if (!(await this.follows.claimEdit(run.id, follower.threadId, content.text))) return;
    this.edits += 1;
    await adapter.editMessage(follower.threadId, follower.messageId, toPostable(content));
    await this.follows.noteWritten(run.id, { ...follower, text: content.text });
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    if (this.audienceTimer) clearInterval(this.audienceTimer);
    for (const entry of this.pending.values()) if (entry.timer) clearTimeout(entry.timer);
    this.reader?.disconnect(false);
  }
}

function parseRun(fields: string[]): Run | null {
  const map: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) map[fields[i]!] = fields[i + 1]!;
  try {
    const run = JSON.parse(map['run'] ?? '') as Run;
    return run && typeof run.id === 'string' && run.id === map['id'] ? run : null;
  } catch {
    return null;
  }
}
