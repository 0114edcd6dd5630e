import type { AgentConfig, ServiceConfig } from '../config/service-config.js';
import { sleep } from './abort.js';

/**
 * Spaces model calls to one provider endpoint across every run of the installation, so parallel
 * runs queue for their turn instead of drawing 429s from the provider. The loop calls `acquire`
 * before every attempt (retries included); it resolves when the call may go, and rejects when
 * `signal` fires while waiting.
 */
export interface ProviderGate {
  acquire(key: string, signal: AbortSignal): Promise<void>;
}

/** Calls per minute for a gate key: one figure for all, or looked up per key (a project's own `agent:` block). */
export type RequestsPerMinute = number | ((key: string) => number);

/** The gate key of an agent configuration: the provider and its endpoint (`agent.requests_per_minute` counts per key). */
export function providerGateKey(agent: Pick<AgentConfig, 'provider' | 'base_url'>): string {
  return `${agent.provider ?? 'none'} ${agent.base_url ?? 'default'}`;
}

/**
 * The rate of a gate key from the live configuration: the top-level `agent:` block and every
 * project's, the lowest `requests_per_minute` among those naming that provider endpoint (the
 * endpoint's limit is one, whichever project calls it); the top-level figure for a key none names.
 * Read on every acquire, so a reloaded configuration applies at once.
 */
export function requestsPerMinuteFrom(config: () => Pick<ServiceConfig, 'agent' | 'projects'>): (key: string) => number {
  return (key) => {
    const current = config();
    let rate: number | null = null;
    for (const agent of [current.agent, ...Object.values(current.projects).map((project) => project.agent)]) {
      if (providerGateKey(agent) === key) rate = Math.min(rate ?? Number.POSITIVE_INFINITY, agent.requests_per_minute);
    }
    return rate ?? current.agent.requests_per_minute;
  };
}

/** Milliseconds between calls for a rate (at least 1 call a minute). */
export function emissionIntervalMs(rate: RequestsPerMinute, key: string): number {
  const perMinute = typeof rate === 'function' ? rate(key) : rate;
  return 60_000 / Math.max(1, Number.isFinite(perMinute) ? perMinute : 1);
}

/** Lets every call through at once: for tests and benchmarks that must not wait. */
export const UNLIMITED_PROVIDER_GATE: ProviderGate = { acquire: async () => undefined };

/**
 * This process's own gate: GCRA (a token bucket written as one "theoretical arrival time" per
 * key), calls spaced 60 000 / requests_per_minute ms apart with `burst` calls allowed back to back.
 * Waiters on a key are served in call order. Used without the store, and as the Redis gate's
 * fallback while the store is unreachable.
 */
export class InMemoryProviderGate implements ProviderGate {
  private readonly arrival = new Map<string, number>();

  constructor(
    private readonly requestsPerMinute: RequestsPerMinute,
    private readonly options: { burst?: number; now?: () => number } = {},
  ) {}

  async acquire(key: string, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    const now = (this.options.now ?? Date.now)();
    const interval = emissionIntervalMs(this.requestsPerMinute, key);
    const tolerance = interval * (Math.max(1, this.options.burst ?? 1) - 1);
    // Reserving the slot now (rather than after the wait) keeps waiters in call order; a waiter
    // that is aborted leaves its slot taken, which only spaces later calls a little more.
    const arrival = Math.max(this.arrival.get(key) ?? now, now);
    this.arrival.set(key, arrival + interval);
    const wait = arrival - tolerance - now;
    if (wait > 0) await sleep(wait, signal);
  }
}
