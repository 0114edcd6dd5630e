import { describe, expect, it } from 'vitest';
import { RevisionCheck } from './revision-check.js';

/** A read the test finishes by hand, so the order of reads and callers is exact. */
function controlledReads() {
  const pending: ((value: string) => void)[] = [];
  const read = () => new Promise<string>((resolve) => pending.push(resolve));
  return { read, pending };
}

describe('RevisionCheck', () => {
  it('never serves a caller a read that started before it arrived; later callers share the next read', async () => {
    const { read, pending } = controlledReads();
    const check = new RevisionCheck(read);
    const first = check.current();
    const second = check.current();
    const third = check.current();
    expect(pending).toHaveLength(1);
    pending[0]!('1');
    expect(await first).toBe('1');
    await Promise.resolve();
    expect(pending).toHaveLength(2);
    pending[1]!('2');
    expect([await second, await third]).toEqual(['2', '2']);
  });

  it('gives null for a read that fails, and reads again next time', async () => {
    let calls = 0;
    const check = new RevisionCheck(async () => {
      calls += 1;
      if (calls === 1) throw new Error('database away');
      return '7';
    });
    expect(await check.current()).toBeNull();
    expect(await check.current()).toBe('7');
  });
});
