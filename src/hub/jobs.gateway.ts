import { Logger, UseGuards } from '@nestjs/common';
import {
  ConnectedSocket, MessageBody, type OnGatewayConnection, type OnGatewayDisconnect, type OnGatewayInit, SubscribeMessage, WebSocketGateway,
} from '@nestjs/websockets';
import type { Server } from 'socket.io';
import { AuthenticationService } from '../auth/authentication.service.js';
import { Permission } from '../auth/permission.js';
import { RequirePermissions } from '../auth/require-permissions.decorator.js';
import { RunChangeAudience } from '../runs/changes/run-change-audience.js';
import { unauthorizedBody } from '../auth/unauthorized.js';
import { HubFeedRelay } from './hub-feed.relay.js';
import { HubSessions } from './hub-sessions.js';
import { HubMethod, type HubSocket, RUNS_ROOM, handshakeAuthorization, isRunRoom, runRoom } from './hub-socket.js';
import { HubGuard } from './hub.guard.js';

/** Runs one connection may watch at once: each is a room, and rooms cost memory per socket. */
export const MAX_WATCHED_RUNS = 100;

interface Ack {
  ok: boolean;
  error?: string;
}

/**
 * The live hub at `/hub/jobs` (Socket.IO). The bearer token comes in the handshake
 * (`auth.token`, or the Authorization header); with enforcement on a connection without a valid
 * token is refused. Each method is checked against the same permission table as HTTP routes.
 */
@UseGuards(HubGuard)
@WebSocketGateway({ path: '/hub/jobs', cors: { origin: false }, serveClient: false })
export class JobsGateway implements OnGatewayInit, OnGatewayConnection, OnGatewayDisconnect {
  private readonly logger = new Logger('Hub');

  constructor(
    private readonly authn: AuthenticationService,
    private readonly relay: HubFeedRelay,
    private readonly sessions: HubSessions,
    private readonly audience: RunChangeAudience,
  ) {}

  afterInit(server: Server): void {
    server.use((socket, next) => {
      // A throw must refuse the handshake: left unhandled it would hang it and end the process.
      void this.authenticate(socket as HubSocket).then(
        (error) => next(error ?? undefined),
        (error: unknown) => {
          this.logger.warn(`hub handshake failed: ${(error as Error)?.message ?? String(error)}`);
          next(refusal('temporarily_unavailable', null));
        },
      );
    });
    this.relay.attach(server);
    // Whether this hub has a listener, for the run.changed publisher: kept by room events, so a
    // change (one per claim, step or transition) never walks the rooms to find out.
    const { adapter } = server.sockets;
    let watchedRuns = 0;
    adapter.on('create-room', (room: string) => { if (isRunRoom(room)) watchedRuns += 1; });
    adapter.on('delete-room', (room: string) => { if (isRunRoom(room)) watchedRuns -= 1; });
    this.audience.watchLocal(() => watchedRuns > 0 || adapter.rooms.has(RUNS_ROOM));
  }

  handleConnection(socket: HubSocket): void {
    this.sessions.track(socket);
  }

  handleDisconnect(socket: HubSocket): void {
    this.sessions.untrack(socket);
  }

  @SubscribeMessage(HubMethod.SubscribeRuns)
  @RequirePermissions(Permission.RunsRead)
  async subscribeRuns(@ConnectedSocket() socket: HubSocket): Promise<Ack> {
    await socket.join(RUNS_ROOM);
    this.audience.listening();
    return { ok: true };
  }

  @SubscribeMessage(HubMethod.UnsubscribeRuns)
  @RequirePermissions(Permission.RunsRead)
  async unsubscribeRuns(@ConnectedSocket() socket: HubSocket): Promise<Ack> {
    await socket.leave(RUNS_ROOM);
    return { ok: true };
  }

  /** The live sandbox drawer: every event of one run. */
  @SubscribeMessage(HubMethod.WatchRun)
  @RequirePermissions(Permission.RunsWatch)
  async watchRun(@ConnectedSocket() socket: HubSocket, @MessageBody() body: unknown): Promise<Ack> {
    const runId = runIdOf(body);
    if (!runId) return { ok: false, error: 'run.watch needs {"runId": "<uuid>"}' };
    const room = runRoom(runId);
    const watched = [...socket.rooms].filter(isRunRoom).length;
    if (!socket.rooms.has(room) && watched >= MAX_WATCHED_RUNS) {
      return { ok: false, error: `run.watch: this connection already watches ${MAX_WATCHED_RUNS} runs (the limit); run.unwatch one first` };
    }
    await socket.join(room);
    this.audience.listening();
    return { ok: true };
  }

  @SubscribeMessage(HubMethod.UnwatchRun)
  @RequirePermissions(Permission.RunsWatch)
  async unwatchRun(@ConnectedSocket() socket: HubSocket, @MessageBody() body: unknown): Promise<Ack> {
    const runId = runIdOf(body);
    if (!runId) return { ok: false, error: 'run.unwatch needs {"runId": "<uuid>"}' };
    await socket.leave(runRoom(runId));
    return { ok: true };
  }

  /** Null to admit the connection, or the refusal (its `data` carries the 401 body). */
  private async authenticate(socket: HubSocket): Promise<Error | null> {
    const token = handshakeAuthorization(socket);
    const result = token === undefined && !this.authn.enforce ? { kind: 'unconfigured' as const } : await this.authn.authenticate(token);
    socket.data.principal = result.kind === 'principal' ? result.principal : null;
    const exp = result.kind === 'principal' ? result.principal.claims['exp'] : null;
    socket.data.expiresAt = typeof exp === 'number' ? exp : null;
    if (!this.authn.enforce || result.kind === 'principal') return null;
    const reason = result.kind === 'refused' ? result.reason : 'not_configured';
    this.logger.debug(`hub connection refused: ${reason}`);
    return refusal(reason, result.kind === 'refused' ? result.detail : null);
  }
}

/** A handshake refusal: `connect_error` with message `unauthorized` and the 401 body as `data`. */
function refusal(...args: Parameters<typeof unauthorizedBody>): Error {
  const error = new Error('unauthorized') as Error & { data: unknown };
  error.data = unauthorizedBody(...args);
  return error;
}

function runIdOf(body: unknown): string | null {
  const runId = (body as { runId?: unknown } | null)?.runId;
  return typeof runId === 'string' && /^[0-9a-f-]{36}$/i.test(runId) ? runId : null;
}
