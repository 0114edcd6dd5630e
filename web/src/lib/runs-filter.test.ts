import { describe, expect, it } from 'vitest';
import { runFixture } from './run-fixture';
import { matchesFilter, parseRunsFilter, runsQuery } from './runs-filter';

const NOW = Date.parse('2026-11-28T12:00:00Z');

/** Ticket 42, created at 11:30, not started: the filter reads no other field. */
const run = (over: Parameters<typeof runFixture>[1] = {}) => runFixture('r1', { ticket: '42', startedAt: null, ...over });

describe('runs filter in the URL', () => {
  it('keeps known values and drops unknown states, ranges and blanks without failing', () => {
    expect(parseRunsFilter({ state: 'failed', project: ' shop ', range: '7d', ticket: 42 })).toEqual({ state: 'failed', project: 'shop', range: '7d', ticket: '42' });
    expect(parseRunsFilter({ state: 'exploded', range: '3y', pipeline: '   ', platform: ['a'] })).toEqual({});
  });

  it('round-trips through the query string the router writes', () => {
    const filter = parseRunsFilter({ state: 'parked', pipeline: 'code' });
    const search = new URLSearchParams(filter as Record<string, string>);
    expect(parseRunsFilter(Object.fromEntries(search))).toEqual(filter);
  });

  it('turns a range into since, measured at now, and always bounds the page', () => {
    const query = new URLSearchParams(runsQuery({ state: 'failed', range: '1h' }, NOW));
    expect(query.get('state')).toBe('failed');
    expect(query.get('since')).toBe('2026-11-28T11:00:00.000Z');
    expect(query.get('limit')).toBe('200');
    expect(new URLSearchParams(runsQuery({}, NOW)).has('since')).toBe(false);
  });

  it('decides whether a run the hub announced belongs in the list', () => {
    expect(matchesFilter(run(), { state: 'running', project: 'shop' }, NOW)).toBe(true);
    expect(matchesFilter(run({ state: 'failed' }), { state: 'running' }, NOW)).toBe(false);
    expect(matchesFilter(run({ project: 'other' }), { project: 'shop' }, NOW)).toBe(false);
    expect(matchesFilter(run({ createdAt: '2026-11-28T10:00:00Z' }), { range: '1h' }, NOW)).toBe(false);
    expect(matchesFilter(run({ ticket: null }), { ticket: '42' }, NOW)).toBe(false);
  });
});
