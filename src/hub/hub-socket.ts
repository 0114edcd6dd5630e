import type { Socket } from 'socket.io';
import type { Principal } from '../auth/principal.js';

/** What the handshake established about a hub connection (re-checked while it lives). */
export interface HubSocketData {
  principal: Principal | null;
  /** The token's `exp` (seconds since the epoch), or null when no token was accepted. */
  expiresAt: number | null;
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
  /** `{run: Run}` whenever a run's state, sandboxes, steps, pull requests or usage change. */
  RunChanged: 'run.changed',
  Error: 'error',
} as const;

export const RUNS_ROOM = 'runs';
const RUN_ROOM_PREFIX = 'run:';
export const runRoom = (runId: string): string => `${RUN_ROOM_PREFIX}${runId}`;
export const isRunRoom = (room: string): boolean => room.startsWith(RUN_ROOM_PREFIX);

/** The `Authorization` value of a hub handshake: `auth.token` first, else the header. */
export function handshakeAuthorization(socket: HubSocket): string | undefined {
  const token: unknown = socket.handshake.auth?.token;
  return typeof token === 'string' ? `Bearer ${token}` : socket.handshake.headers.authorization;
}
