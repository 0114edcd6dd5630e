import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryProviderGate, providerGateKey, requestsPerMinuteFrom } from '../../src/agent/provider-gate.js';
import { DEFAULT_AGENT, type ProjectConfig } from '../../src/config/service-config.js';
import { RedisProviderGate } from '../../src/agent/redis-provider-gate.js';
import { createStoreClient } from '../../src/store/store-connection.service.js';
import { REDIS_URL, deleteKeys, uniqueKeyPrefix } from '../support/test-store.js';

const never = new AbortController().signal;

async function timesOf(acquires: (() => Promise<void>)[]): Promise<number[]> {
  const start = Date.now();
  const times: number[] = [];
  await Promise.all(acquires.map((acquire) => acquire().then(() => times.push(Date.now() - start))));
  return times.sort((a, b) => a - b);
}

describe('in-memory provider gate', () => {
  it('spaces calls to one key 60 000 / requests_per_minute ms apart; other keys do not wait', async () => {
    const gate = new InMemoryProviderGate(600); // 100 ms apart
    const times = await timesOf([0, 1, 2, 3].map(() => () => gate.acquire('openai default', never)));
    expect(times[0]).toBeLessThan(50);
    expect(times[3]).toBeGreaterThanOrEqual(290);
    expect(times[3]).toBeLessThan(600);
    const started = Date.now();
    await gate.acquire('anthropic default', never);
    expect(Date.now() - started).toBeLessThan(50);
  });

  it('takes the rate per key, and a burst', async () => {
    const gate = new InMemoryProviderGate((key) => (key === 'slow' ? 60 : 6000), { burst: 3 });
    const fast = await timesOf([0, 1, 2, 3, 4].map(() => () => gate.acquire('fast', never)));
    expect(fast[4]).toBeLessThan(100);
    const slow = new AbortController();
    await gate.acquire('slow', never);
    await gate.acquire('slow', never);
    await gate.acquire('slow', never);
    const waiting = gate.acquire('slow', slow.signal);
    setTimeout(() => slow.abort(new Error('cancelled')), 50);
    await expect(waiting).rejects.toThrow('cancelled');
  });

  it('takes the rate of each key from the configuration: the lowest among the blocks naming that endpoint', () => {
    const top = { ...DEFAULT_AGENT, provider: 'openai' as const, requests_per_minute: 100 };
    const project = (agent: Partial<typeof DEFAULT_AGENT>) => ({ agent: { ...top, ...agent } }) as unknown as ProjectConfig;
    const rate = requestsPerMinuteFrom(() => ({
      agent: top,
      projects: { a: project({ requests_per_minute: 40 }), b: project({ provider: 'anthropic', requests_per_minute: 500 }) },
    }));
    expect(rate('openai default')).toBe(40);
    expect(rate('anthropic default')).toBe(500);
    expect(rate('openai-compatible http://elsewhere')).toBe(100);
  });

  it('keys by provider and endpoint', () => {
    expect(providerGateKey({ provider: 'openai', base_url: null })).toBe('openai default');
    expect(providerGateKey({ provider: 'openai-compatible', base_url: 'http://llm:8080/v1' })).toBe('openai-compatible http://llm:8080/v1');
  });
});

describe('Redis provider gate (the real store)', () => {
  let a: Redis;
  let b: Redis;
  const prefix = uniqueKeyPrefix('agent-gate');

  beforeAll(async () => {
    a = createStoreClient(REDIS_URL);
    b = createStoreClient(REDIS_URL);
    await Promise.all([a.ping().catch(() => new Promise((r) => a.once('ready', r))), b.ping().catch(() => new Promise((r) => b.once('ready', r)))]);
  });

  afterAll(async () => {
    await deleteKeys(a, prefix);
    a.disconnect();
    b.disconnect();
  });

  it('two replicas share one schedule per key, under <prefix>agent-rate:<key>', async () => {
    const one = new RedisProviderGate(a, 600, { keyPrefix: prefix });
    const two = new RedisProviderGate(b, 600, { keyPrefix: prefix });
    const key = 'openai https://api.openai.com/v1';
    const times = await timesOf([one, two, one, two].map((gate) => () => gate.acquire(key, never)));
    expect(times[0]).toBeLessThan(80);
    expect(times[3]).toBeGreaterThanOrEqual(280);
    expect(times[3]).toBeLessThan(900);
    expect(await a.exists(`${prefix}agent-rate:${key}`)).toBe(1);
    expect(await a.pttl(`${prefix}agent-rate:${key}`)).toBeGreaterThan(0);
    const other = Date.now();
    await two.acquire('anthropic default', never);
    expect(Date.now() - other).toBeLessThan(80);
  });

  it('a waiter is released at once by its signal', async () => {
    const gate = new RedisProviderGate(a, 1, { keyPrefix: prefix }); // one a minute
    await gate.acquire('slow', never);
    const controller = new AbortController();
    const waiting = gate.acquire('slow', controller.signal);
    const started = Date.now();
    setTimeout(() => controller.abort(new Error('cancelled')), 100);
    await expect(waiting).rejects.toThrow('cancelled');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('falls back to its own schedule while the store is unreachable', async () => {
    const dead = new Redis('redis://127.0.0.1:1/0', { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    dead.on('error', () => undefined);
    const gate = new RedisProviderGate(dead, 600, { keyPrefix: prefix });
    const times = await timesOf([0, 1, 2].map(() => () => gate.acquire('k', never)));
    expect(times[2]).toBeGreaterThanOrEqual(190);
    dead.disconnect();
  });
});
