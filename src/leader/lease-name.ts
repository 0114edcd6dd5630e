import { BackgroundSubsystem } from '../store/subsystem.js';

/** Leader leases (store key `svc:leader:<name>`), each backing one background subsystem. */
export const LeaseName = {
  Poller: 'poller',
  Housekeeping: 'housekeeping',
  CapacityQueue: 'capacity_queue',
} as const;
export type LeaseName = (typeof LeaseName)[keyof typeof LeaseName];

export const LEASE_SUBSYSTEM: Record<LeaseName, BackgroundSubsystem> = {
  [LeaseName.Poller]: BackgroundSubsystem.Poller,
  [LeaseName.Housekeeping]: BackgroundSubsystem.Housekeeping,
  [LeaseName.CapacityQueue]: BackgroundSubsystem.CapacityQueue,
};
