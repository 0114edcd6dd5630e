import { describe, expect, it } from 'vitest';
import { parsePullRequestsSearch, parseStatisticsSearch, pullRequestsQuery } from './page-search';

describe('pull requests URL state', () => {
  it('keeps known values and drops the rest', () => {
    expect(parsePullRequestsSearch({ project: ' shop ', state: 'merged', page: '3' })).toEqual({ project: 'shop', state: 'merged', page: 3 });
    expect(parsePullRequestsSearch({ project: '', state: 'draft', page: '0' })).toEqual({});
    expect(parsePullRequestsSearch({ page: 1 })).toEqual({});
    expect(parsePullRequestsSearch({ page: 2.5, project: 42 })).toEqual({ project: '42' });
  });

  it('turns a page into limit and offset', () => {
    expect(pullRequestsQuery({})).toBe('limit=50&offset=0');
    expect(pullRequestsQuery({ project: 'shop', state: 'open', page: 3 })).toBe('project=shop&state=open&limit=50&offset=100');
  });
});

describe('statistics URL state', () => {
  it('keeps a known range and a project', () => {
    expect(parseStatisticsSearch({ range: '30d', project: 'shop' })).toEqual({ range: '30d', project: 'shop' });
    expect(parseStatisticsSearch({ range: '1y' })).toEqual({});
  });
});
