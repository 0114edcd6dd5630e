import type { Redis } from 'ioredis';
import { sleep } from './abort.js';
import { InMemoryProviderGate, type ProviderGate, type RequestsPerMinute, emissionIntervalMs } from './provider-gate.js';

/**
 * GCRA in one script, so every replica shares the schedule: KEYS[1] holds the theoretical
 * arrival time (ms, the store's own clock, so replicas' clocks do not matter). ARGV: the interval
 * between calls and the burst tolerance, both ms. Returns 0 when the call may go now (and books
 * it), else the ms to wait before asking again (nothing booked: an aborted waiter takes no slot).
 */
const GCRA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local wait = tat - tolerance - now
if wait > 0 then return math.ceil(wait) end
local next = tat + interval
redis.call('SET', KEYS[1], tostring(next), 'PX', math.ceil(next - now) + 1000)
return 0
`;

type GcraClient = { agentRateGcra?(key: string, interval: string, tolerance: string): Promise<number> };

/**
 * The installation-wide gate: the schedule of each key lives in the store under
 * `<prefix>agent-rate:<key>` (prefix as the store's, e.g. `svc:`), shared by every replica.
 * While the store cannot be reached the gate falls back to this process's own schedule rather
 * than stopping every run: the provider's 429s, which the loop retries, are the backstop.
 */
export class RedisProviderGate implements ProviderGate {
  private readonly fallback: InMemoryProviderGate;
  private readonly prefix: string;
  private readonly burst: number;

  constructor(
    private readonly client: Redis,
    private readonly requestsPerMinute: RequestsPerMinute,
    options: { keyPrefix: string; burst?: number },
  ) {
    this.prefix = options.keyPrefix.endsWith(':') || options.keyPrefix === '' ? options.keyPrefix : `${options.keyPrefix}:`;
    this.burst = Math.max(1, options.burst ?? 1);
    this.fallback = new InMemoryProviderGate(requestsPerMinute, { burst: this.burst });
    if (typeof (client as unknown as GcraClient).agentRateGcra !== 'function') {
      client.defineCommand('agentRateGcra', { numberOfKeys: 1, lua: GCRA });
    }
  }

  /** The store key of a gate key. */
  keyFor(key: string): string {
    return `${this.prefix}agent-rate:${key}`;
  }

  async acquire(key: string, signal: AbortSignal): Promise<void> {
    const interval = emissionIntervalMs(this.requestsPerMinute, key);
    const tolerance = interval * (this.burst - 1);
    for (;;) {
      signal.throwIfAborted();
      let wait: number;
      try {
        wait = Number(await (this.client as unknown as Required<GcraClient>).agentRateGcra(this.keyFor(key), String(interval), String(tolerance)));
      } catch {
        return this.fallback.acquire(key, signal);
      }
      if (!(wait > 0)) return;
      await sleep(wait, signal);
    }
  }
}
