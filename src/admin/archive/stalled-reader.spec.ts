import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { abandonWhenStalled } from './stalled-reader.js';

describe('abandonWhenStalled', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('destroys a source left waiting longer than the limit, and not one that is being read', async () => {
    let since: number | null = null;
    const source = new Readable({ read() {} });
    const failed = new Promise<Error>((resolve) => source.once('error', resolve));
    abandonWhenStalled(source, () => since, 60_000);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(source.destroyed).toBe(false);
    since = Date.now();
    await vi.advanceTimersByTimeAsync(50_000);
    expect(source.destroyed).toBe(false);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(source.destroyed).toBe(true);
    expect((await failed).message).toBe('the client read nothing for 60 s; the download was abandoned');
  });

  it('stops checking once the source closed', async () => {
    const source = new Readable({ read() {} });
    abandonWhenStalled(source, () => 0, 1_000);
    source.destroy();
    await vi.advanceTimersByTimeAsync(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});
