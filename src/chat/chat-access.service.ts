import { Injectable } from '@nestjs/common';
import { chatPrincipal, CHAT_CLAIM, resolveChatRoles } from '../access/chat-principals.js';
import { AccessStoreService } from '../access/access-store.service.js';
import { ObservationRecorder } from '../access/observation-recorder.service.js';
import type { Permission } from '../auth/permission.js';
import { type Principal, principalOf } from '../auth/principal.js';
import { ConfigService } from '../config/config.service.js';
import type { ChatOrigin } from './chat-platform.js';

/** A chat user resolved: its principal name, roles and permissions where it wrote. */
export interface ChatCaller {
  /** `<platform>:<workspace or tenant>/<user id>`: attribution and the Access surface's value. */
  principal: string;
  roles: string[];
  permissions: ReadonlySet<Permission>;
}

/**
 * Who a chat user is and what it may do (contract "Chat"): the roles granted to its principal on
 * the Access surface (claim `chat`) plus the role its channel has in `chat.channels`, and nothing
 * else. Each caller is noted like any other, so the Access surface lists it.
 */
@Injectable()
export class ChatAccessService {
  constructor(
    private readonly access: AccessStoreService,
    private readonly observations: ObservationRecorder,
    private readonly config: ConfigService,
  ) {}

  async resolve(platform: string, origin: ChatOrigin): Promise<ChatCaller> {
    const principal = chatPrincipal(platform, origin.workspace, origin.user);
    const channelRole = this.config.config.chat.channels[chatPrincipal(platform, origin.workspace, origin.channel)] ?? null;
    const resolution = resolveChatRoles(await this.access.document(), principal, channelRole);
    this.observations.note(this.observed(principal, resolution));
    return { principal, roles: resolution.roles, permissions: new Set(resolution.permissions) };
  }

  /** As seen: the principal under claim `chat`, no role or group values (a channel's role is the channel's). */
  private observed(principal: string, resolution: ReturnType<typeof resolveChatRoles>): Principal {
    return principalOf({
      claims: { sub: principal, [CHAT_CLAIM]: principal },
      roleClaim: '', groupClaim: '', nameClaim: CHAT_CLAIM,
      resolution: { ...resolution, roleClaimValues: [], groupClaimValues: [] },
    });
  }
}

/** The permissions of `required` the caller lacks. */
export function missing(caller: ChatCaller, ...required: Permission[]): Permission[] {
  return required.filter((p) => !caller.permissions.has(p));
}
