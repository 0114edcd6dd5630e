import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { onConnectionCall } from '../common/connection-calls.js';

/** What the server last saw of one connection. */
export interface Observed {
  lastOk: Date | null;
  lastError: { at: Date; message: string } | null;
}

/** Keys kept at most: connections come from the configuration, so this only bounds a pathological one. */
const MAX_KEYS = 2000;

/**
 * The diagnostics' memory of every connection: the last success and the last failure the server
 * saw, from normal work (`reportConnectionCall`: tracker and model calls; the store and the
 * database through their state changes) and from probes. In memory, per replica: a replica
 * reports what it saw itself.
 */
@Injectable()
export class ConnectionBook implements OnModuleDestroy {
  private readonly byKey = new Map<string, Observed>();
  private readonly unsubscribe = onConnectionCall((call) => this.record(call.key, call.ok, call.error, call.at));

  record(key: string, ok: boolean, error: string | null, at: Date = new Date()): void {
    const seen = this.byKey.get(key) ?? { lastOk: null, lastError: null };
    if (ok) seen.lastOk = at;
    else seen.lastError = { at, message: error ?? 'failed' };
    this.byKey.delete(key);
    this.byKey.set(key, seen);
    if (this.byKey.size > MAX_KEYS) this.byKey.delete(this.byKey.keys().next().value as string);
  }

  get(key: string | null): Observed {
    const seen = key === null ? undefined : this.byKey.get(key);
    return { lastOk: seen?.lastOk ?? null, lastError: seen?.lastError ?? null };
  }

  onModuleDestroy(): void {
    this.unsubscribe();
  }
}

/** The later of two observations, field by field. */
export function latest(a: Observed, b: Observed): Observed {
  const lastOk = a.lastOk && b.lastOk ? (a.lastOk > b.lastOk ? a.lastOk : b.lastOk) : (a.lastOk ?? b.lastOk);
  const lastError = a.lastError && b.lastError ? (a.lastError.at > b.lastError.at ? a.lastError : b.lastError) : (a.lastError ?? b.lastError);
  return { lastOk, lastError };
}
