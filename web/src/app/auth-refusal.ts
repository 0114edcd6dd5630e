import { useSyncExternalStore } from 'react';
import type { TokenRefusal } from '../api/types';

/** The last refusal of the caller's token: the identity page says which check refused it. */
let current: TokenRefusal | null = null;
const listeners = new Set<() => void>();

export function reportRefusal(refusal: TokenRefusal | null): void {
  current = refusal;
  for (const listener of listeners) listener();
}

export function useRefusal(): TokenRefusal | null {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => current,
  );
}

/** Refusals that signing in again can cure; the others (audience, issuer…) would loop. */
export function curedBySignIn(reason: string): boolean {
  return reason === 'missing' || reason === 'expired';
}
