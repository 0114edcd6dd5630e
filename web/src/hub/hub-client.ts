import { io, type Socket } from 'socket.io-client';
import type { Run, RunEvent } from '../api/types';

export interface HubHandlers {
  runChanged(run: Run): void;
  runEvent(runId: string, event: RunEvent): void;
  /**
   * After a reconnect (not the first connect): whatever happened while away was not pushed, so
   * run lists refetch once and each watched run fetches its events after the last seq it holds.
   */
  resync(watchedRuns: string[]): void;
  connection(state: HubState): void;
}

export type HubState = 'connecting' | 'live' | 'offline';

interface RunEventMessage extends RunEvent { run: string }

/**
 * The app's one connection to `/hub/jobs`. The token is asked for on every (re)connect, so a
 * refreshed token is what the next handshake carries; subscriptions are remembered and sent
 * again after each reconnect.
 */
export class HubClient {
  private socket: Socket | null = null;
  private subscribed = 0;
  private readonly watched = new Map<string, number>();
  private connectedOnce = false;

  constructor(
    private readonly token: () => Promise<string | null>,
    private readonly handlers: HubHandlers,
    private readonly url = '',
  ) {}

  start(): void {
    if (this.socket) return;
    this.handlers.connection('connecting');
    const socket = io(this.url, {
      path: '/hub/jobs',
      transports: ['websocket'],
      auth: (cb) => {
        void this.token().then((token) => cb(token ? { token } : {}), () => cb({}));
      },
    });
    socket.on('connect', () => {
      this.handlers.connection('live');
      if (this.subscribed > 0) socket.emit('runs.subscribe');
      for (const runId of this.watched.keys()) socket.emit('run.watch', { runId });
      if (this.connectedOnce) this.handlers.resync([...this.watched.keys()]);
      this.connectedOnce = true;
    });
    socket.on('disconnect', () => this.handlers.connection('offline'));
    socket.on('connect_error', () => this.handlers.connection('offline'));
    socket.on('run.changed', (message: { run: Run }) => this.handlers.runChanged(message.run));
    socket.on('run.event', (message: RunEventMessage) => {
      const { run, ...event } = message;
      this.handlers.runEvent(run, event);
    });
    this.socket = socket;
  }

  stop(): void {
    this.socket?.close();
    this.socket = null;
  }

  /** Reference-counted: each page that shows run lists subscribes while it is open. */
  subscribeRuns(): () => void {
    this.subscribed += 1;
    if (this.subscribed === 1 && this.socket?.connected) this.socket.emit('runs.subscribe');
    return () => {
      this.subscribed -= 1;
      if (this.subscribed === 0 && this.socket?.connected) this.socket.emit('runs.unsubscribe');
    };
  }

  watchRun(runId: string): () => void {
    const count = (this.watched.get(runId) ?? 0) + 1;
    this.watched.set(runId, count);
    if (count === 1 && this.socket?.connected) this.socket.emit('run.watch', { runId });
    return () => {
      const left = (this.watched.get(runId) ?? 1) - 1;
      if (left > 0) {
        this.watched.set(runId, left);
        return;
      }
      this.watched.delete(runId);
      if (this.socket?.connected) this.socket.emit('run.unwatch', { runId });
    };
  }
}
