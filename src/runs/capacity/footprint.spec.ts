import { describe, expect, it } from 'vitest';
import { exceedsCapacity, fits, footprintOf, sandboxCount } from './footprint.js';

const GI = 1024 ** 3;
const sandbox = { cpu: 1, memory: 2 * GI };

describe('run footprint', () => {
  it('is one sandbox for a project without repositories, N for N repositories', () => {
    expect(sandboxCount(null)).toBe(1);
    expect(sandboxCount({ repos: [] } as never)).toBe(1);
    expect(sandboxCount({ repos: [{}, {}, {}] } as never)).toBe(3);
  });

  it('sums the sandboxes requests', () => {
    expect(footprintOf(3, sandbox)).toEqual({ cpu: 3, memory: 6 * GI });
    expect(footprintOf(0, { cpu: 0.5, memory: GI })).toEqual({ cpu: 0.5, memory: GI });
  });

  it('fits only when both cpu and memory fit; no capacity means unbounded', () => {
    const capacity = { cpu: 2, memory: 4 * GI };
    expect(fits({ cpu: 1, memory: 2 * GI }, footprintOf(1, sandbox), capacity)).toBe(true);
    expect(fits({ cpu: 1, memory: 2 * GI }, footprintOf(2, sandbox), capacity)).toBe(false);
    expect(fits({ cpu: 0, memory: 3 * GI }, footprintOf(1, sandbox), capacity)).toBe(false);
    expect(fits({ cpu: 1000, memory: 1000 * GI }, footprintOf(5, sandbox), null)).toBe(true);
    expect(exceedsCapacity(footprintOf(3, sandbox), capacity)).toBe(true);
    expect(exceedsCapacity(footprintOf(2, sandbox), capacity)).toBe(false);
  });
});
