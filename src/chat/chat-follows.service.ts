import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { StoreConnectionService } from '../store/store-connection.service.js';

/** The one message a thread keeps for a run. */
export interface FollowRecord {
  platform: string;
  threadId: string;
  messageId: string;
  /** The text last written into it (an unchanged state edits nothing). */
  text: string;
}

/** What a thread is about: the run it started or follows (the latest, after an answer resumed it). */
export interface ThreadRecord {
  runId: string;
}

/** A design dialogue held in a thread. */
export interface DesignRecord {
  conversationId: string;
  project: string;
  /** Drafts proposed so far (filed together after the confirmation). */
  drafts: number;
}

const FOLLOW_TTL_SECONDS = 14 * 24 * 3600;
const THREAD_TTL_SECONDS = 30 * 24 * 3600;
/** Slack redelivers within minutes; a day covers every retry with room to spare. */
const EVENT_TTL_SECONDS = 24 * 3600;

/**
 * Chat's state in the store, under the service's prefix: which threads follow which runs and
 * with which message, what each thread is about, and the ids of events already taken (a
 * redelivery does nothing twice). The store is the one place every replica sees.
 */
@Injectable()
export class ChatFollowsService {
  constructor(private readonly store: StoreConnectionService) {}

  private get client() {
    const client = this.store.client;
    if (!client || !this.store.isConnected) throw new Error('the store is not connected');
    return client;
  }

  /** True the first time an event id is seen on a platform (Redis SET NX with a TTL). */
  async firstDelivery(platform: string, eventId: string): Promise<boolean> {
    const id = createHash('sha256').update(eventId, 'utf8').digest('hex');
    return (await this.client.set(this.store.key('chat', 'event', platform, id), '1', 'EX', EVENT_TTL_SECONDS, 'NX')) === 'OK';
  }

  async follow(runId: string, record: FollowRecord): Promise<void> {
    const key = this.store.key('chat', 'follow', runId);
    await this.client.multi()
      .hset(key, record.threadId, JSON.stringify(record)).expire(key, FOLLOW_TTL_SECONDS)
      .sadd(this.store.key('chat', 'following'), runId)
      .set(this.store.key('chat', 'thread', record.threadId), JSON.stringify({ runId } satisfies ThreadRecord), 'EX', THREAD_TTL_SECONDS)
      .exec();
  }

  async followers(runId: string): Promise<FollowRecord[]> {
    const all = await this.client.hgetall(this.store.key('chat', 'follow', runId));
    return Object.values(all).flatMap((v) => {
      try {
        return [JSON.parse(v) as FollowRecord];
      } catch {
        return [];
      }
    });
  }

  async noteWritten(runId: string, record: FollowRecord): Promise<void> {
    await this.client.hset(this.store.key('chat', 'follow', runId), record.threadId, JSON.stringify(record));
  }

  /** The thread's message no longer shows this run (it moved on to the next attempt). */
  async unfollow(runId: string, threadId: string): Promise<void> {
    await this.client.hdel(this.store.key('chat', 'follow', runId), threadId);
  }

  /** The run has ended: nobody needs its changes any more (its records stay for a while). */
  async ended(runId: string): Promise<void> {
    await this.client.srem(this.store.key('chat', 'following'), runId);
  }

  /** How many runs are followed now, on any replica. */
  async followedCount(): Promise<number> {
    return this.client.scard(this.store.key('chat', 'following'));
  }

  async threadOf(threadId: string): Promise<ThreadRecord | null> {
    const raw = await this.client.get(this.store.key('chat', 'thread', threadId));
    try {
      return raw ? (JSON.parse(raw) as ThreadRecord) : null;
    } catch {
      return null;
    }
  }

  async designOf(threadId: string): Promise<DesignRecord | null> {
    const raw = await this.client.get(this.store.key('chat', 'design', threadId));
    try {
      return raw ? (JSON.parse(raw) as DesignRecord) : null;
    } catch {
      return null;
    }
  }

  async setDesign(threadId: string, record: DesignRecord): Promise<void> {
    await this.client.set(this.store.key('chat', 'design', threadId), JSON.stringify(record), 'EX', THREAD_TTL_SECONDS);
  }

  /** One replica writes a given text into a given message: the others find the mark taken. */
  async claimEdit(runId: string, threadId: string, text: string): Promise<boolean> {
    const digest = createHash('sha256').update(threadId).update('\u0000').update(text).digest('hex');
    return (await this.client.set(this.store.key('chat', 'edit', runId, digest), '1', 'EX', 600, 'NX')) === 'OK';
  }
}
