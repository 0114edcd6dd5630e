import { describe, expect, it } from 'vitest';
import type { Run, RunPage } from '../api/types';
import { runFixture as run } from './run-fixture';
import { durationMs, patchRunPage } from './run-cache';

const page = (...items: Run[]): RunPage => ({ items, total: items.length });

describe('patching a cached runs list from run.changed', () => {
  it('replaces a listed run in place, keeping its position', () => {
    const before = page(run('a'), run('b'), run('c'));
    const changed = run('b', { state: 'cancelled', finishedAt: '2026-11-28T11:31:00Z' });
    const { page: after, fresh } = patchRunPage(before, changed, true);
    expect(after.items.map((r) => r.id)).toEqual(['a', 'b', 'c']);
    expect(after.items[1]).toBe(changed);
    expect(after.total).toBe(3);
    expect(fresh).toBe(false);
    expect(before.items[1]!.state).toBe('running');
  });

  it('holds back a new matching run instead of inserting it (no jumping list)', () => {
    const before = page(run('a'));
    const result = patchRunPage(before, run('z'), true);
    expect(result.page).toBe(before);
    expect(result.fresh).toBe(true);
  });

  it('ignores a new run the filter does not show', () => {
    const before = page(run('a'));
    expect(patchRunPage(before, run('z'), false)).toEqual({ page: before, fresh: false });
  });

  it('drops a listed run that no longer matches (a state filter) and counts it out', () => {
    const { page: after } = patchRunPage(page(run('a'), run('b')), run('a', { state: 'failed' }), false);
    expect(after.items.map((r) => r.id)).toEqual(['b']);
    expect(after.total).toBe(1);
  });

  it('keeps a finished copy when a stale unfinished one arrives late', () => {
    const finished = run('a', { state: 'succeeded', finishedAt: '2026-11-28T11:40:00Z' });
    const before = page(finished);
    expect(patchRunPage(before, run('a'), true).page.items[0]).toBe(finished);
  });

  it('measures a live duration to now and a finished one to its end', () => {
    const now = Date.parse('2026-11-28T11:31:01Z');
    expect(durationMs(run('a'), now)).toBe(60_000);
    expect(durationMs(run('a', { finishedAt: '2026-11-28T11:30:11Z' }), now)).toBe(10_000);
    expect(durationMs(run('a', { startedAt: null, state: 'queued' }), now)).toBeNull();
  });
});
