import { describe, expect, it } from 'vitest';
import { parseCpu, parseMemory } from './quantities.js';

describe('parseMemory', () => {
  it.each([
    ['16Gi', 16 * 1024 ** 3],
    ['512Mi', 512 * 1024 ** 2],
    ['2Ki', 2048],
    ['1Ti', 1024 ** 4],
    ['1G', 1e9],
    ['500M', 5e8],
    ['4k', 4000],
    ['1.5Gi', 1.5 * 1024 ** 3],
    [' 8Gi ', 8 * 1024 ** 3],
    ['1024', 1024],
    [2048, 2048],
  ])('%j → %d bytes', (input, bytes) => {
    expect(parseMemory(input)).toBe(bytes);
  });

  it.each(['16GB', 'Gi', '16 gigs', '-1Gi', '1ki', '', 'abc', '0', '0Gi', 0, -5, Number.NaN, Number.POSITIVE_INFINITY, null, undefined, true, {}])(
    '%j → null',
    (input) => {
      expect(parseMemory(input)).toBeNull();
    },
  );
});

describe('parseCpu', () => {
  it.each([
    ['500m', 0.5],
    ['250m', 0.25],
    ['2', 2],
    ['1.5', 1.5],
    [8, 8],
    [0.5, 0.5],
  ])('%j → %d cores', (input, cores) => {
    expect(parseCpu(input)).toBe(cores);
  });

  it.each(['0', '0m', 0, -1, 'eight', '500M', '1 core', '', null, undefined, false])('%j → null', (input) => {
    expect(parseCpu(input)).toBeNull();
  });
});
