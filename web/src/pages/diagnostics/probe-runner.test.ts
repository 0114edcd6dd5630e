import { describe, expect, it } from 'vitest';
import { healthOf } from './diagnostics-types';
import { ProbeRunner } from './probe-runner';

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((a, b) => { resolve = a; reject = b; });
  return { promise, resolve, reject };
}

describe('probe runner', () => {
  it('runs one probe per connection at a time and keeps each answer', async () => {
    const pending = new Map<string, ReturnType<typeof deferred<string>>>();
    const calls: string[] = [];
    const runner = new ProbeRunner<string>((name) => {
      calls.push(name);
      const d = deferred<string>();
      pending.set(name, d);
      return d.promise;
    }, () => undefined);
    const first = runner.run('store');
    const second = runner.run('store');
    expect(calls).toEqual(['store']);
    expect(runner.get('store')).toEqual({ state: 'running' });
    pending.get('store')!.resolve('pong');
    await Promise.all([first, second]);
    expect(runner.get('store')).toEqual({ state: 'done', answer: 'pong' });
  });

  it('keeps a refused probe as a failed state', async () => {
    const runner = new ProbeRunner<string>(() => Promise.reject(new Error('403')), () => undefined);
    await runner.run('db');
    expect(runner.get('db')).toMatchObject({ state: 'failed', error: new Error('403') });
  });

  it('probes all with a bounded number in flight, skipping those already running', async () => {
    let inFlight = 0;
    let most = 0;
    const seen: string[] = [];
    const runner = new ProbeRunner<string>(async (name) => {
      seen.push(name);
      inFlight++;
      most = Math.max(most, inFlight);
      await Promise.resolve();
      inFlight--;
      return name;
    }, () => undefined);
    await runner.runAll(['a', 'b', 'c', 'd', 'e', 'f'], 2);
    expect(most).toBe(2);
    expect(seen.sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
  });
});

describe('connection health', () => {
  it('takes the newer of the last success and failure', () => {
    const at = (iso: string) => ({ at: iso, message: 'x' });
    expect(healthOf({ configured: false, lastOk: null, lastError: null })).toBe('unconfigured');
    expect(healthOf({ configured: true, lastOk: null, lastError: null })).toBe('unknown');
    expect(healthOf({ configured: true, lastOk: '2026-01-01T00:00:02Z', lastError: at('2026-01-01T00:00:01Z') })).toBe('ok');
    expect(healthOf({ configured: true, lastOk: '2026-01-01T00:00:01Z', lastError: at('2026-01-01T00:00:02Z') })).toBe('failing');
    expect(healthOf({ configured: true, lastOk: null, lastError: at('2026-01-01T00:00:02Z') })).toBe('failing');
  });
});
