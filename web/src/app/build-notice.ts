import { useSyncExternalStore } from 'react';

/** The build the server named when it differs from the tab's (set by the API client). */
let serverBuild: string | null = null;
const listeners = new Set<() => void>();

export function reportServerBuild(build: string): void {
  if (serverBuild === build) return;
  serverBuild = build;
  for (const listener of listeners) listener();
}

export function useServerBuildMismatch(): string | null {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => serverBuild,
  );
}
