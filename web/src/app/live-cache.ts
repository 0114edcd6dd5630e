import type { QueryClient } from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';
import type { ApiClient } from '../api/client';
import type { Run, RunPage } from '../api/types';
import type { HubHandlers, HubState } from '../hub/hub-client';
import { patchRunPage } from '../lib/run-cache';
import { type RunsFilter, matchesFilter } from '../lib/runs-filter';
import { addLiveEvent, catchUp } from './run-events-store';

/** Runs the hub announced that a list holds back ("N new runs"), per list query key. */
const freshByList = new Map<string, Set<string>>();
const freshListeners = new Set<() => void>();
let hubState: HubState = 'connecting';
const stateListeners = new Set<() => void>();

export function listKey(filter: RunsFilter): string {
  return JSON.stringify(filter);
}

function notifyFresh(): void {
  for (const l of freshListeners) l();
}

export function useFreshRuns(filter: RunsFilter): number {
  const key = listKey(filter);
  return useSyncExternalStore(
    (l) => {
      freshListeners.add(l);
      return () => freshListeners.delete(l);
    },
    () => freshByList.get(key)?.size ?? 0,
  );
}

export function clearFreshRuns(filter: RunsFilter): void {
  freshByList.delete(listKey(filter));
  notifyFresh();
}

export function useHubState(): HubState {
  return useSyncExternalStore(
    (l) => {
      stateListeners.add(l);
      return () => stateListeners.delete(l);
    },
    () => hubState,
  );
}

/** Applies one run.changed to every cached list and the run's own query: no refetch. */
export function applyRunChanged(queryClient: QueryClient, run: Run, now = Date.now()): void {
  queryClient.setQueryData<Run>(['run', run.id], (old) => (old ? run : old));
  for (const query of queryClient.getQueryCache().findAll({ queryKey: ['runs'] })) {
    const filter = query.queryKey[1] as RunsFilter;
    const page = query.state.data as RunPage | undefined;
    if (!page) continue;
    const result = patchRunPage(page, run, matchesFilter(run, filter, now));
    if (result.page !== page) queryClient.setQueryData(query.queryKey, result.page);
    if (result.fresh) {
      const key = listKey(filter);
      const set = freshByList.get(key) ?? new Set<string>();
      set.add(run.id);
      freshByList.set(key, set);
      notifyFresh();
    }
  }
  scheduleCountsRefresh(queryClient);
}

let countsTimer: ReturnType<typeof setTimeout> | null = null;
/** Per-state counts come from the statistics route: refreshed at most every 5 s under a burst. */
function scheduleCountsRefresh(queryClient: QueryClient): void {
  if (countsTimer) return;
  countsTimer = setTimeout(() => {
    countsTimer = null;
    void queryClient.invalidateQueries({ queryKey: ['statistics'] });
  }, 5_000);
}

export function wireHubToCache(queryClient: QueryClient, api: ApiClient): HubHandlers {
  return {
    runChanged: (run) => applyRunChanged(queryClient, run),
    runEvent: (runId, event) => addLiveEvent(runId, event),
    resync: (watched) => {
      void queryClient.invalidateQueries({ queryKey: ['runs'] });
      void queryClient.invalidateQueries({ queryKey: ['run'] });
      for (const runId of watched) void catchUp(api, runId);
    },
    connection: (state) => {
      hubState = state;
      for (const l of stateListeners) l();
    },
  };
}
