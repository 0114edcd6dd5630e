import { describe, expect, it } from 'vitest';
import { jittered, retryDelay } from './jitter.js';

describe('jittered', () => {
  it('stays within ±10 % of the interval, reaching both ends', () => {
    expect(jittered(60_000, 0.1, () => 0)).toBe(54_000);
    expect(jittered(60_000, 0.1, () => 0.5)).toBe(60_000);
    expect(jittered(60_000, 0.1, () => 0.999_999)).toBe(66_000);
  });

  it('spreads waits over the whole band', () => {
    const waits = Array.from({ length: 2000 }, () => jittered(10_000, 0.1));
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(9_000);
    expect(Math.max(...waits)).toBeLessThanOrEqual(11_000);
    expect(Math.min(...waits)).toBeLessThan(9_200);
    expect(Math.max(...waits)).toBeGreaterThan(10_800);
  });

  it('clamps a fraction outside [0, 1] and never answers a negative wait', () => {
    expect(jittered(1000, -1, () => 0)).toBe(1000);
    expect(jittered(1000, 5, () => 0)).toBe(0);
  });
});

describe('retryDelay', () => {
  it('doubles from the base per failure and stops at the cap', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => retryDelay(n, 5_000, 60_000))).toEqual([5_000, 10_000, 20_000, 40_000, 60_000, 60_000]);
  });

  it('never waits less than the base, even under a smaller cap', () => {
    expect(retryDelay(3, 5_000, 1_000)).toBe(5_000);
  });
});
