import { describe, expect, it } from 'vitest';
import { admitInOrder } from './admission-order.js';
import { NO_FOOTPRINT } from './footprint.js';

const capacity = { cpu: 4, memory: 4 };
const run = (id: string, cpu: number) => ({ id, footprint: { cpu, memory: cpu } });
const ids = (runs: { id: string }[]) => runs.map((r) => r.id);

describe('capacity admission order', () => {
  it('admits from the head while runs fit', () => {
    expect(ids(admitInOrder([run('a', 1), run('b', 2), run('c', 1)], NO_FOOTPRINT, capacity))).toEqual(['a', 'b', 'c']);
    expect(ids(admitInOrder([run('a', 1), run('b', 2), run('c', 1)], { cpu: 1, memory: 1 }, capacity))).toEqual(['a', 'b']);
  });

  it('never lets a later run overtake a head that does not fit, even one that would fit', () => {
    expect(ids(admitInOrder([run('big', 3), run('small', 1)], { cpu: 2, memory: 2 }, capacity))).toEqual([]);
    expect(ids(admitInOrder([run('a', 1), run('big', 3), run('small', 1)], { cpu: 1, memory: 1 }, capacity))).toEqual(['a']);
  });

  it('does not wait for a run that could never fit', () => {
    expect(ids(admitInOrder([run('huge', 9), run('a', 1)], NO_FOOTPRINT, capacity))).toEqual(['a']);
  });

  it('admits everything without a capacity block', () => {
    expect(ids(admitInOrder([run('a', 100), run('b', 100)], { cpu: 1000, memory: 1000 }, null))).toEqual(['a', 'b']);
  });
});
