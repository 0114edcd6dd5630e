import { Logger, UseGuards } from '@nestjs/common';
import { ConnectedSocket, MessageBody, type OnGatewayInit, SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import type { Server } from 'socket.io';
import { AuthenticationService } from '../auth/authentication.service.js';
import { Permission } from '../auth/permission.js';
import { RequirePermissions } from '../auth/require-permissions.decorator.js';
import { unauthorizedBody } from '../auth/unauthorized.js';
import { HubFeedRelay } from './hub-feed.relay.js';
import { HubMethod, type HubSocket, RUNS_ROOM, runRoom } from './hub-socket.js';
import { HubGuard } from './hub.guard.js';

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
export class JobsGateway implements OnGatewayInit {
  private readonly logger = new Logger('Hub');

  constructor(
    private readonly authn: AuthenticationService,
    private readonly relay: HubFeedRelay,
  ) {}

  afterInit(server: Server): void {
    server.use((socket, next) => {
      void this.authenticate(socket as HubSocket).then((error) => next(error ?? undefined));
    });
    this.relay.attach(server);
  }

  @SubscribeMessage(HubMethod.SubscribeRuns)
  @RequirePermissions(Permission.RunsRead)
  async subscribeRuns(@ConnectedSocket() socket: HubSocket): Promise<Ack> {
    await socket.join(RUNS_ROOM);
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
    await socket.join(runRoom(runId));
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
    const token = typeof socket.handshake.auth?.token === 'string' ? `Bearer ${socket.handshake.auth.token}` : socket.handshake.headers.authorization;
    const result = token === undefined && !this.authn.enforce ? { kind: 'unconfigured' as const } : await this.authn.authenticate(token);
    socket.data.principal = result.kind === 'principal' ? result.principal : null;
    if (!this.authn.enforce || result.kind === 'principal') return null;
    const reason = result.kind === 'refused' ? result.reason : 'not_configured';
    const error = new Error('unauthorized') as Error & { data: unknown };
    error.data = unauthorizedBody(reason, result.kind === 'refused' ? result.detail : null);
    this.logger.debug(`hub connection refused: ${reason}`);
    return error;
  }
}

function runIdOf(body: unknown): string | null {
  const runId = (body as { runId?: unknown } | null)?.runId;
  return typeof runId === 'string' && /^[0-9a-f-]{36}$/i.test(runId) ? runId : null;
}
