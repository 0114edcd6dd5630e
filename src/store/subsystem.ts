/** Background subsystems reported on /health (spec: "Background subsystem names"). */
export const BackgroundSubsystem = {
  QueueConsumer: 'queue_consumer',
  Housekeeping: 'housekeeping',
  Poller: 'poller',
  CapacityQueue: 'capacity_queue',
  Redis: 'redis',
} as const;
export type BackgroundSubsystem = (typeof BackgroundSubsystem)[keyof typeof BackgroundSubsystem];

export const SUBSYSTEM_STATES = ['up', 'degraded', 'down', 'disabled'] as const;
export type SubsystemState = (typeof SUBSYSTEM_STATES)[number];

export interface SubsystemStatus {
  name: BackgroundSubsystem;
  state: SubsystemState;
  reason: string;
  last_changed_utc: string;
}
