import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

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
