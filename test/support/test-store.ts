import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { eventually } from './eventually.js';

/** The machine's Redis; override with TEST_KVSTORE_URL. */
export const REDIS_URL = process.env.TEST_KVSTORE_URL ?? 'redis://127.0.0.1:6379/0';

/** A key prefix of this test's own: tests share one Redis and never touch each other's keys. */
export function uniqueKeyPrefix(label: string): string {
  return `test-${label}-${randomBytes(5).toString('hex')}:`;
}

/** Deletes every key under `prefix` (never FLUSHDB: other tests share this Redis). */
export async function deleteKeys(redis: Redis, prefix: string): Promise<number> {
  let deleted = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) deleted += await redis.del(...keys);
  } while (cursor !== '0');
  return deleted;
}

/** A redis-server of a test's own (to stop, kill or start late), and a client to it. */
export interface PrivateRedis {
  port: number;
  url: string;
  client: Redis;
  /** SIGKILL: connections drop at once, as when the store's host dies. */
  kill(): Promise<void>;
}

/** Starts `redis-server` on `port` (no persistence) and resolves once it answers PING. */
export async function startPrivateRedis(port: number): Promise<PrivateRedis> {
  const server: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], {
    stdio: 'ignore',
  });
  const exited = new Promise<void>((done) => server.once('exit', () => done()));
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => 50 });
  client.on('error', () => undefined);
  await eventually(async () => ((await client.ping().catch(() => null)) === 'PONG' ? true : undefined), 10_000, `redis-server on ${port} to answer`);
  return {
    port, url: `redis://127.0.0.1:${port}/0`, client,
    async kill() {
      client.disconnect();
      if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
      await exited;
    },
  };
}
