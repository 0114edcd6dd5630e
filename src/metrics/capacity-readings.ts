import type { CapacityConfig } from '../config/service-config.js';

export interface CapacityReading {
  inUse: number;
  /** Absent when the dimension is unbounded: no `free` series rather than +Inf (which breaks sums and ratios). */
  free?: number;
}

/**
 * Capacity in use and free, per dimension, from what admitted live runs hold. Free never goes
 * below zero (a capacity lowered by a reload while runs hold more).
 */
export function capacityReadings(capacity: CapacityConfig | null, inUse: { cpu: number; memory: number }): { cpu: CapacityReading; memory: CapacityReading } {
  const reading = (total: number | undefined, used: number): CapacityReading =>
    total === undefined || !Number.isFinite(total) ? { inUse: used } : { inUse: used, free: Math.max(0, total - used) };
  return { cpu: reading(capacity?.cpu, inUse.cpu), memory: reading(capacity?.memory, inUse.memory) };
}
