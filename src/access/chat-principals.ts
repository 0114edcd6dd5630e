import { type AccessDocument, type ClaimNames, type RoleResolution, resolveRoles } from '../auth/role-resolution.js';

/**
 * The claim a chat user's person grants carry (contract "Chat": "person grants with claim
 * `chat`"): its value is the principal `<platform>:<workspace or tenant>/<user id>`.
 */
export const CHAT_CLAIM = 'chat';

/** A pseudo-claim the channel's role arrives in; no token can carry it (chat users have no token). */
const CHANNEL_ROLE_CLAIM = '\u0000chat-channel-role';
const NO_GROUP_CLAIM = '\u0000chat-groups';
const CHAT_CLAIM_NAMES: ClaimNames = { name_claim: CHAT_CLAIM, role_claim: CHANNEL_ROLE_CLAIM, group_claim: NO_GROUP_CLAIM };

/** `slack` + `T024BE7LD` + `U0G9QF9C6` → `slack:T024BE7LD/U0G9QF9C6`. */
export function chatPrincipal(platform: string, workspace: string, id: string): string {
  return `${platform}:${workspace}/${id}`;
}

export function isChatPrincipal(claim: string): boolean {
  return claim === CHAT_CLAIM;
}

/**
 * A chat user's roles: its person grants with claim `chat`, plus the role its channel is given in
 * `chat.channels` (null: none), and nothing else — no role claim, no group, no SERVICE_ADMIN_GRANT.
 */
export function resolveChatRoles(access: AccessDocument, principal: string, channelRole: string | null): RoleResolution {
  return resolveRoles({
    claims: { sub: principal, [CHAT_CLAIM]: principal, ...(channelRole ? { [CHANNEL_ROLE_CLAIM]: [channelRole] } : {}) },
    claimNames: CHAT_CLAIM_NAMES,
    access,
    adminGrant: null,
  });
}
