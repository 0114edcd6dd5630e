import { useEffect, useSyncExternalStore } from 'react';
import type { ApiClient } from '../api/client';
import type { RunEvent, RunEventPage } from '../api/types';
import { EventLog } from '../lib/event-log';
import { useServices } from './context';

const PAGE = 1000;

interface Entry {
  log: EventLog;
  listeners: Set<() => void>;
  loading: Promise<void> | null;
  error: unknown;
}

/** One event log per run the tab shows, fed by the API (open, resync) and the hub (live). */
const entries = new Map<string, Entry>();

function entry(runId: string): Entry {
  let found = entries.get(runId);
  if (!found) {
    found = { log: new EventLog(), listeners: new Set(), loading: null, error: null };
    entries.set(runId, found);
  }
  return found;
}

function notify(e: Entry): void {
  for (const listener of e.listeners) listener();
}

export function addLiveEvent(runId: string, event: RunEvent): void {
  const e = entries.get(runId);
  if (e && e.log.add([event]) > 0) notify(e);
}

/** Reads every event after the last contiguous seq held, page by page (open and after a reconnect). */
export function catchUp(api: ApiClient, runId: string): Promise<void> {
  const e = entry(runId);
  if (e.loading) return e.loading;
  e.loading = (async () => {
    try {
      let after: number | null = e.log.contiguousSeq();
      while (after !== null) {
        const page: RunEventPage = await api.get<RunEventPage>(`/api/runs/${encodeURIComponent(runId)}/events?after=${after}&limit=${PAGE}`);
        e.log.add(page.items);
        after = page.nextAfter;
        notify(e);
      }
      e.error = null;
    } catch (error) {
      e.error = error;
      notify(e);
    } finally {
      e.loading = null;
    }
  })();
  return e.loading;
}

export interface RunEventsView {
  events: readonly RunEvent[];
  revision: number;
  error: unknown;
  retry(): void;
}

/** The run's events, live while the page is open: watches the run on the hub and catches up. */
export function useRunEvents(runId: string, watch: boolean): RunEventsView {
  const { api, hub } = useServices();
  const e = entry(runId);
  const revision = useSyncExternalStore(
    (listener) => {
      e.listeners.add(listener);
      return () => e.listeners.delete(listener);
    },
    () => e.log.revision * 2 + (e.error ? 1 : 0),
  );
  useEffect(() => {
    const unwatch = watch ? hub.watchRun(runId) : () => undefined;
    void catchUp(api, runId);
    return unwatch;
  }, [api, hub, runId, watch]);
  return { events: e.log.all(), revision, error: e.error, retry: () => void catchUp(api, runId) };
}
