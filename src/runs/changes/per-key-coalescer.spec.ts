import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { PerKeyCoalescer } from './per-key-coalescer.js';

/** A work function whose calls the test releases one by one. */
function gatedWork() {
  const calls: { key: string; release: () => void }[] = [];
  const work = (key: string) => new Promise<void>((release) => calls.push({ key, release }));
  return { calls, work };
}

describe('PerKeyCoalescer', () => {
  it('turns a burst of touches of one key into one call after the delay', async () => {
    const seen: string[] = [];
    const c = new PerKeyCoalescer(30, async (key) => {
      seen.push(key);
    });
    for (let i = 0; i < 50; i += 1) c.touch('a');
    expect(seen).toEqual([]);
    await sleep(150);
    expect(seen).toEqual(['a']);
    expect(c.size).toBe(0);
  });

  it('keeps keys apart', async () => {
    const seen: string[] = [];
    const c = new PerKeyCoalescer(10, async (key) => {
      seen.push(key);
    });
    c.touch('a');
    c.touch('b');
    c.touch('a');
    await sleep(100);
    expect(seen.sort()).toEqual(['a', 'b']);
  });

  it('a touch during a running call is followed by another call that starts after it', async () => {
    const { calls, work } = gatedWork();
    const c = new PerKeyCoalescer(10, work);
    c.touch('a');
    await sleep(60);
    expect(calls).toHaveLength(1); // running, not released
    c.touch('a');
    c.touch('a');
    await sleep(60);
    expect(calls).toHaveLength(1); // one call per key at a time
    calls[0]!.release();
    await sleep(60);
    expect(calls).toHaveLength(2); // the touches during the first call got one more call
    calls[1]!.release();
    await sleep(60);
    expect(calls).toHaveLength(2);
    expect(c.size).toBe(0);
  });

  it('a failing call does not stop later ones', async () => {
    let n = 0;
    const c = new PerKeyCoalescer(5, async () => {
      n += 1;
      throw new Error('down');
    });
    c.touch('a');
    await sleep(50);
    c.touch('a');
    await sleep(50);
    expect(n).toBe(2);
    expect(c.size).toBe(0);
  });

  it('drain runs pending calls at once and waits for their follow-ups', async () => {
    const seen: string[] = [];
    const c = new PerKeyCoalescer(60_000, async (key) => {
      seen.push(key);
      if (seen.length === 1) c.touch('a'); // a change while the first call runs
    });
    c.touch('a');
    c.touch('b');
    await c.drain();
    expect(seen.sort()).toEqual(['a', 'a', 'b']);
    expect(c.size).toBe(0);
  });
});
