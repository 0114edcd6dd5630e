import { describe, expect, it } from 'vitest';
import { capacityReadings } from './capacity-readings.js';

const GI = 1024 ** 3;

describe('capacityReadings', () => {
  it('gives in use and free per dimension of a bounded capacity', () => {
    expect(capacityReadings({ cpu: 8, memory: 16 * GI }, { cpu: 3, memory: 6 * GI })).toEqual({
      cpu: { inUse: 3, free: 5 },
      memory: { inUse: 6 * GI, free: 10 * GI },
    });
  });

  it('has no free figure when capacity is unbounded, only what is in use', () => {
    expect(capacityReadings(null, { cpu: 2, memory: GI })).toEqual({ cpu: { inUse: 2 }, memory: { inUse: GI } });
  });

  it('leaves out free only for the dimension that is unbounded', () => {
    expect(capacityReadings({ cpu: Number.POSITIVE_INFINITY, memory: 4 * GI }, { cpu: 2, memory: GI })).toEqual({
      cpu: { inUse: 2 },
      memory: { inUse: GI, free: 3 * GI },
    });
  });

  it('never reports negative free capacity when runs hold more than a lowered capacity', () => {
    expect(capacityReadings({ cpu: 2, memory: GI }, { cpu: 4, memory: 2 * GI })).toEqual({
      cpu: { inUse: 4, free: 0 },
      memory: { inUse: 2 * GI, free: 0 },
    });
  });
});
