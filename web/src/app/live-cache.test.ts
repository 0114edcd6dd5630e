import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import type { Run, RunPage } from '../api/types';
import { runFixture as run } from '../lib/run-fixture';
import { applyRunChanged, clearFreshRuns, listKey } from './live-cache';

describe('hub run.changed into the query cache', () => {
  it('patches every cached list and the run query without refetching anything', () => {
    const client = new QueryClient();
    const all: RunPage = { items: [run('a'), run('b')], total: 2 };
    const running: RunPage = { items: [run('b')], total: 1 };
    client.setQueryData(['runs', {}], all);
    client.setQueryData(['runs', { state: 'running' }], running);
    client.setQueryData(['run', 'b'], run('b'));
    let fetches = 0;
    client.getQueryCache().subscribe((e) => { if (e.type === 'updated' && e.action.type === 'fetch') fetches += 1; });

    const cancelled = run('b', { state: 'cancelled', finishedAt: '2026-11-28T11:35:00Z' });
    applyRunChanged(client, cancelled, Date.parse('2026-11-28T12:00:00Z'));

    expect(client.getQueryData<RunPage>(['runs', {}])!.items.map((r) => r.state)).toEqual(['running', 'cancelled']);
    expect(client.getQueryData<RunPage>(['runs', { state: 'running' }])!.items).toEqual([]);
    expect(client.getQueryData<Run>(['run', 'b'])).toEqual(cancelled);
    expect(fetches).toBe(0);
  });

  it('does not create a run query nobody asked for, and holds new runs back per list', () => {
    const client = new QueryClient();
    client.setQueryData(['runs', { project: 'shop' }], { items: [], total: 0 });
    client.setQueryData(['runs', { project: 'other' }], { items: [], total: 0 });
    applyRunChanged(client, run('n'), Date.parse('2026-11-28T12:00:00Z'));
    expect(client.getQueryData(['run', 'n'])).toBeUndefined();
    expect(client.getQueryData<RunPage>(['runs', { project: 'shop' }])!.items).toEqual([]);
    expect(listKey({ project: 'shop' })).not.toBe(listKey({ project: 'other' }));
    clearFreshRuns({ project: 'shop' });
  });
});
