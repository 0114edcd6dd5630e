/** Background subsystems reported on /health (spec: "Background subsystem names"). */
export const BackgroundSubsystem = {
  QueueConsumer: 'queue_consumer',
  Housekeeping: 'housekeeping',
  Poller: 'poller',
  CapacityQueue: 'capacity_queue',
  Redis: 'redis',
} as const;
export type BackgroundSubsystem = (typeof BackgroundSubsystem)[keyof typeof BackgroundSubsystem];

export type SubsystemState = 'up' | 'degraded' | 'down' | 'disabled';

export interface SubsystemStatus {
  name: BackgroundSubsystem;
  state: SubsystemState;
  reason: string;
  last_changed_utc: string;
}
