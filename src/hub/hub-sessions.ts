import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { AccessStoreService } from '../access/access-store.service.js';
import type { AccessDocument } from '../auth/role-resolution.js';
import { AuthenticationService } from '../auth/authentication.service.js';
import { Permission } from '../auth/permission.js';
import type { Principal } from '../auth/principal.js';
import { unauthorizedBody } from '../auth/unauthorized.js';
import { DEFAULT_CLOCK_TOLERANCE_SECONDS } from '../auth/token-validator.js';
import { HubEvent, type HubSocket, RUNS_ROOM, handshakeAuthorization, isRunRoom } from './hub-socket.js';

/** Re-validation interval when the validator still accepted a token past our expiry estimate. */
const EXPIRY_RECHECK_MS = 1_000;
/** setTimeout's ceiling (~24.8 days); longer tokens are simply re-checked then. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** How often the access document is compared; the store itself refreshes at most every 5 s. */
const ACCESS_SWEEP_MS = 1_000;

/** The permission a room's traffic needs: the same as the method that joins it. */
function roomPermission(room: string): Permission | null {
  if (room === RUNS_ROOM) return Permission.RunsRead;
  return isRunRoom(room) ? Permission.RunsWatch : null;
}

/**
 * Keeps hub connections authorised for as long as they live, not only at the handshake (with
 * enforcement on): the token is re-validated and roles re-resolved per message, at expiry, and
 * whenever the access document changes. A connection whose token no longer validates is sent the
 * 401 body as an `error` event and disconnected; one that lost a permission leaves the rooms
 * that need it.
 */
@Injectable()
export class HubSessions implements OnApplicationShutdown {
  private readonly logger = new Logger('HubSessions');
  private readonly expiryTimers = new Map<HubSocket, NodeJS.Timeout>();
  private sweepTimer: NodeJS.Timeout | null = null;
  private sweeping = false;
  /** Serialised document last checked against: the store hands out a new object on every refresh. */
  private seenAccess: string | null = null;

  constructor(
    private readonly authn: AuthenticationService,
    private readonly access: AccessStoreService,
  ) {}

  /** Starts watching an admitted connection. */
  track(socket: HubSocket): void {
    if (!this.authn.enforce || socket.data.principal == null) return;
    this.scheduleExpiry(socket);
    this.sweepTimer ??= setInterval(() => void this.sweep(), ACCESS_SWEEP_MS).unref();
  }

  untrack(socket: HubSocket): void {
    clearTimeout(this.expiryTimers.get(socket));
    this.expiryTimers.delete(socket);
    if (this.expiryTimers.size === 0 && this.sweepTimer) {
      clearInterval(this.sweepTimer);
      this.sweepTimer = null;
      this.seenAccess = null;
    }
  }

  /**
   * Re-validates the handshake token and re-resolves its roles against the current access
   * document (the very code HTTP requests go through). Null when the connection was refused and
   * disconnected; otherwise the fresh principal, after leaving rooms it no longer qualifies for.
   */
  async recheck(socket: HubSocket): Promise<Principal | null> {
    let result: Awaited<ReturnType<AuthenticationService['authenticate']>>;
    try {
      result = await this.authn.authenticate(handshakeAuthorization(socket));
    } catch (error) {
      this.logger.warn(`hub re-authentication failed: ${(error as Error).message}`);
      this.refuse(socket, 'temporarily_unavailable', null);
      return null;
    }
    if (result.kind !== 'principal') {
      this.refuse(socket, result.kind === 'refused' ? result.reason : 'not_configured', result.kind === 'refused' ? result.detail : null);
      return null;
    }
    socket.data.principal = result.principal;
    socket.data.expiresAt = expiryOf(result.principal);
    await this.leaveUnqualifiedRooms(socket, result.principal);
    return result.principal;
  }

  private async leaveUnqualifiedRooms(socket: HubSocket, principal: Principal): Promise<void> {
    const held = new Set<string>(principal.permissions);
    const missing = new Set<Permission>();
    const left: string[] = [];
    for (const room of [...socket.rooms]) {
      const needed = roomPermission(room);
      if (needed === null || held.has(needed)) continue;
      await socket.leave(room);
      missing.add(needed);
      left.push(room);
    }
    if (left.length === 0) return;
    const perms = [...missing].sort();
    socket.emit(HubEvent.Error, {
      error: `missing permission${perms.length > 1 ? 's' : ''}: ${perms.join(', ')}; left ${left.length} subscription(s)`,
      missingPermissions: perms, method: null, leftRooms: left,
    });
  }

  private refuse(socket: HubSocket, reason: Parameters<typeof unauthorizedBody>[0], detail: Parameters<typeof unauthorizedBody>[1]): void {
    this.untrack(socket);
    socket.data.principal = null;
    if (!socket.connected) return;
    this.logger.debug(`hub connection closed: ${reason}`);
    socket.emit(HubEvent.Error, unauthorizedBody(reason, detail));
    socket.disconnect(true);
  }

  private scheduleExpiry(socket: HubSocket, delayMs?: number): void {
    clearTimeout(this.expiryTimers.get(socket));
    const exp = socket.data.expiresAt ?? expiryOf(socket.data.principal);
    socket.data.expiresAt = exp;
    // The validator refuses any token without `exp`, so null here means "check now".
    const due = delayMs ?? (exp === null ? 0 : (exp + DEFAULT_CLOCK_TOLERANCE_SECONDS) * 1000 - Date.now() + 1);
    const timer = setTimeout(() => void this.onExpiryDue(socket), Math.min(Math.max(due, 0), MAX_TIMER_MS));
    timer.unref();
    this.expiryTimers.set(socket, timer);
  }

  private async onExpiryDue(socket: HubSocket): Promise<void> {
    const principal = await this.recheck(socket);
    if (principal === null || !this.expiryTimers.has(socket)) return;
    const exp = socket.data.expiresAt;
    const left = exp === null ? 0 : (exp + DEFAULT_CLOCK_TOLERANCE_SECONDS) * 1000 - Date.now();
    this.scheduleExpiry(socket, left > 0 ? left + 1 : EXPIRY_RECHECK_MS);
  }

  /** Re-checks every tracked connection when the access document changed. */
  private async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      const key = serialise(await this.access.document());
      if (key === this.seenAccess) return;
      // The first sweep re-checks too: the document may have changed since a handshake.
      this.seenAccess = key;
      await Promise.all([...this.expiryTimers.keys()].map((s) => this.recheck(s)));
    } catch (error) {
      this.logger.warn(`hub access sweep failed: ${(error as Error).message}`);
    } finally {
      this.sweeping = false;
    }
  }

  onApplicationShutdown(): void {
    for (const socket of [...this.expiryTimers.keys()]) this.untrack(socket);
  }
}

function expiryOf(principal: Principal | null): number | null {
  const exp = principal?.claims['exp'];
  return typeof exp === 'number' ? exp : null;
}

function serialise(document: AccessDocument): string {
  return JSON.stringify(document);
}
