import type { Socket } from 'socket.io';
import type { Principal } from '../auth/principal.js';

/** What the handshake established about a hub connection. */
export interface HubSocketData {
  principal: Principal | null;
}

export type HubSocket = Socket<Record<string, never>, Record<string, (...args: unknown[]) => void>, Record<string, never>, HubSocketData>;

/** The hub's method names (Socket.IO events a client sends). */
export const HubMethod = {
  SubscribeRuns: 'runs.subscribe',
  UnsubscribeRuns: 'runs.unsubscribe',
  WatchRun: 'run.watch',
  UnwatchRun: 'run.unwatch',
} as const;

/** Events the hub sends. */
export const HubEvent = {
  RunEvent: 'run.event',
  Error: 'error',
} as const;

export const RUNS_ROOM = 'runs';
export const runRoom = (runId: string): string => `run:${runId}`;
