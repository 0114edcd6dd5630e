import { describe, expect, it } from 'vitest';
import { isAccessPane, parseAccessSearch, parsePagedSearch } from './admin-search';

describe('the admin pages\' URL state', () => {
  it('knows the four panes only', () => {
    expect(['people', 'groups', 'roles', 'claims'].every(isAccessPane)).toBe(true);
    expect(isAccessPane('settings')).toBe(false);
  });

  it('keeps a search and a page offset, and drops what is not one', () => {
    expect(parseAccessSearch({ q: '  ann ', offset: '25' })).toEqual({ q: 'ann', offset: 25 });
    expect(parseAccessSearch({ q: '   ', offset: '-3' })).toEqual({});
    expect(parsePagedSearch({ offset: 'x' })).toEqual({});
    expect(parsePagedSearch({ offset: 50 })).toEqual({ offset: 50 });
  });
});
