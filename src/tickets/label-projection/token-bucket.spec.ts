import { describe, expect, it } from 'vitest';
import { TokenBucket } from './token-bucket.js';

/** A bucket on a fake clock: sleeping advances time, so the schedule is exact. */
function fakeClockBucket(capacity: number, perMinute: number) {
  let now = 0;
  const bucket = new TokenBucket(capacity, perMinute / 60_000, () => now, async (ms) => {
    now += ms;
  });
  return { bucket, now: () => now };
}

describe('TokenBucket', () => {
  it('lets a burst of `capacity` through at once, then spaces the rest at the sustained rate', async () => {
    const { bucket, now } = fakeClockBucket(3, 60); // one per second after the burst
    const times: number[] = [];
    for (let i = 0; i < 6; i++) {
      await bucket.take();
      times.push(now());
    }
    expect(times.slice(0, 3)).toEqual([0, 0, 0]);
    expect(times[3]).toBeGreaterThanOrEqual(1000);
    expect(times[5]! - times[3]!).toBeGreaterThanOrEqual(2000);
  });

  it('serves concurrent takers in order, never more than the budget', async () => {
    const { bucket, now } = fakeClockBucket(2, 120); // one per 500 ms
    const order: number[] = [];
    await Promise.all([0, 1, 2, 3, 4].map((i) => bucket.take().then(() => order.push(i))));
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(now()).toBeGreaterThanOrEqual(1500);
  });

  it('holds every taker for a mandated pause', async () => {
    const { bucket, now } = fakeClockBucket(5, 600);
    bucket.pauseFor(30_000);
    await bucket.take();
    expect(now()).toBeGreaterThanOrEqual(30_000);
  });

  it('tells how long a pause still holds (the longer of two), and 0 once it is over', async () => {
    const { bucket } = fakeClockBucket(5, 600);
    expect(bucket.pausedForMs).toBe(0);
    bucket.pauseFor(10_000);
    bucket.pauseFor(4_000);
    expect(bucket.pausedForMs).toBe(10_000);
    await bucket.take();
    expect(bucket.pausedForMs).toBe(0);
  });
});
