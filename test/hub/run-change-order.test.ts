import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLISH_RUN_CHANGE_LUA } from '../../src/runs/changes/run-change-feed.js';
import { REDIS_URL, deleteKeys, uniqueKeyPrefix } from '../support/test-store.js';

/**
 * The store side of `run.changed` ordering: two replicas may publish their reads of one run out of
 * order, and the script refuses a read older than one already published. Real Redis.
 */
describe('run.changed publishing order (PUBLISH_RUN_CHANGE_LUA on real Redis)', () => {
  let redis: Redis;
  const prefix = uniqueKeyPrefix('run-change-order');
  const stream = `${prefix}feed:run-changes`;
  const version = `${prefix}feed:run-version:r1`;

  beforeAll(() => {
    redis = new Redis(REDIS_URL);
  });

  afterAll(async () => {
    await deleteKeys(redis, prefix);
    redis.disconnect();
  });

  const publish = async (final: 0 | 1, xmax: number, label: string): Promise<number> =>
    (await redis.eval(PUBLISH_RUN_CHANGE_LUA, 2, stream, version, final, xmax, 600, 1000, 'r1', JSON.stringify({ id: 'r1', label }))) as number;

  it('appends newer reads, refuses older ones, and a finished Run beats any live one', async () => {
    expect(await publish(0, 10, 'running a')).toBe(1);
    expect(await publish(0, 9, 'queued, read earlier')).toBe(0);
    expect(await publish(0, 10, 'running b, same snapshot horizon')).toBe(1);
    expect(await publish(1, 5, 'succeeded')).toBe(1); // finished wins whatever the horizon
    expect(await publish(0, 20, 'running, late')).toBe(0); // a run never becomes live again
    expect(await publish(1, 4, 'succeeded, older read')).toBe(0);
    expect(await publish(1, 6, 'succeeded, usage added')).toBe(1);
    const entries = await redis.xrange(stream, '-', '+');
    expect(entries.map(([, f]) => (JSON.parse(f[3] as string) as { label: string }).label))
      .toEqual(['running a', 'running b, same snapshot horizon', 'succeeded', 'succeeded, usage added']);
    expect(entries[0]?.[1].slice(0, 2)).toEqual(['id', 'r1']);
    expect(await redis.ttl(version)).toBeGreaterThan(500);
  });
});
