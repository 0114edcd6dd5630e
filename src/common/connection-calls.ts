import { createHash } from 'node:crypto';

/**
 * What the server saw of its outbound connections in normal work (a tracker call, a model call),
 * published here by the clients that make them and read by the diagnostics snapshot, so that it can
 * tell when a connection last worked without calling anything itself. In memory, per process.
 *
 * A connection is known by a key derived from where it goes and with which credential (see
 * `connectionKeyOf`): the key is a digest, so the credential never sits in a map or a log.
 */
export interface ConnectionCall {
  key: string;
  ok: boolean;
  /** Why it failed (already scrubbed by the caller); null when ok. */
  error: string | null;
  at: Date;
}

type Listener = (call: ConnectionCall) => void;
const listeners = new Set<Listener>();

/** Subscribes to every reported call; returns the unsubscribe function. */
export function onConnectionCall(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function reportConnectionCall(key: string, ok: boolean, error: string | null): void {
  if (listeners.size === 0) return;
  const call: ConnectionCall = { key, ok, error: ok ? null : error, at: new Date() };
  for (const listener of listeners) {
    try {
      listener(call);
    } catch {
      // an observer never breaks the call it observes
    }
  }
}

/** A stable digest of where a connection goes and the credential it uses. */
export function connectionKeyOf(...parts: readonly (string | null | undefined)[]): string {
  return createHash('sha256').update(parts.map((p) => p ?? '').join('\n')).digest('hex').slice(0, 32);
}
