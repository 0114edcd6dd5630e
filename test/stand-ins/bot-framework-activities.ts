/**
 * Inbound Teams activities as the Bot Framework channel delivers them (Bot Framework Activity
 * schema with Teams' `channelData`, `entities` and conversation ids), for the activities a bot
 * receives: a message (in a channel, with the bot @mentioned; or in a personal chat), an
 * Adaptive Card `Action.Execute` click (`invoke` named `adaptiveCard/action`) and an
 * `Action.Submit` click (a `message` whose `value` carries the card's data).
 */

export type TeamsScope = 'channel' | 'personal' | 'groupChat';

export interface TeamsUser {
  /** Teams user id, `29:…`. */
  id: string;
  name: string;
  aadObjectId: string;
}

export interface TeamsActivityContext {
  serviceUrl: string;
  /** The bot's Microsoft App ID (its account is `28:<appId>`). */
  botAppId: string;
  botName: string;
  tenantId: string;
  scope: TeamsScope;
  user: TeamsUser;
  /** Channel: the channel's id (`19:…@thread.tacv2`); personal: `a:…`; group chat: `19:…@thread.v2`. */
  conversationId: string;
  /** Channel scope only: the team. */
  team?: { id: string; aadGroupId: string; name?: string };
}

export const TEAMS_USER: TeamsUser = {
  id: '29:1mVfXyz0kQd1hPnCfa3XvT3QyvE6dWZbwYHn-Aq3Q0tZs4R2Kf9OoB8oV2mYtLqjmeTj1hQ5qQYwPz7p0d9cA',
  name: 'Megan Bowen',
  aadObjectId: 'f4b7d8c2-1e5a-4c3b-9d6e-2a8f0b1c3d4e',
};

let sequence = 1_710_000_000_000;
function nextId(): string {
  return String(sequence++);
}

/** Fields every activity from the channel carries. */
function envelope(ctx: TeamsActivityContext, id: string, threadRootId: string): Record<string, unknown> {
  const now = new Date();
  const isChannel = ctx.scope === 'channel';
  const conversation: Record<string, unknown> = {
    conversationType: ctx.scope,
    tenantId: ctx.tenantId,
    id: isChannel ? `${ctx.conversationId};messageid=${threadRootId}` : ctx.conversationId,
    ...(ctx.scope === 'personal' ? {} : { isGroup: true }),
  };
  const channelData: Record<string, unknown> = { tenant: { id: ctx.tenantId } };
  if (isChannel && ctx.team) {
    channelData['teamsChannelId'] = ctx.conversationId;
    channelData['teamsTeamId'] = ctx.team.id;
    channelData['channel'] = { id: ctx.conversationId };
    channelData['team'] = { id: ctx.team.id, aadGroupId: ctx.team.aadGroupId, ...(ctx.team.name ? { name: ctx.team.name } : {}) };
  }
  return {
    timestamp: now.toISOString(),
    localTimestamp: now.toISOString().replace('Z', '+00:00'),
    id,
    channelId: 'msteams',
    serviceUrl: ctx.serviceUrl,
    from: { id: ctx.user.id, name: ctx.user.name, aadObjectId: ctx.user.aadObjectId },
    conversation,
    recipient: { id: `28:${ctx.botAppId}`, name: ctx.botName },
    channelData,
    locale: 'en-US',
    localTimezone: 'Europe/Berlin',
  };
}

const CLIENT_INFO = { locale: 'en-US', country: 'US', platform: 'Web', timezone: 'Europe/Berlin', type: 'clientInfo' };

/**
 * A user's message. In a channel the bot must be @mentioned to receive it: the text starts with
 * `<at>botName</at>` and a `mention` entity names the bot. `replyToId` posts into an existing
 * thread (its root's id).
 */
export function teamsMessageActivity(ctx: TeamsActivityContext, text: string, options: { mentionBot?: boolean; replyToId?: string } = {}): Record<string, unknown> {
  const id = nextId();
  const mention = options.mentionBot ?? ctx.scope !== 'personal';
  const atText = `<at>${ctx.botName}</at>`;
  const fullText = mention ? `${atText} ${text}` : text;
  const entities: Record<string, unknown>[] = [];
  if (mention) entities.push({ mentioned: { id: `28:${ctx.botAppId}`, name: ctx.botName }, text: atText, type: 'mention' });
  entities.push(CLIENT_INFO);
  const html = mention
    ? `<div><div><span itemscope="" itemtype="http://schema.skype.com/Mention" itemid="0">${ctx.botName}</span> ${text}</div></div>`
    : `<p>${text}</p>`;
  return {
    text: fullText,
    textFormat: 'plain',
    attachments: [{ contentType: 'text/html', content: html }],
    type: 'message',
    ...envelope(ctx, id, options.replyToId ?? id),
    entities,
    ...(options.replyToId ? { replyToId: options.replyToId } : {}),
  };
}

/**
 * A click on an `Action.Execute` button of an Adaptive Card the bot sent (Universal Actions):
 * an `invoke` activity named `adaptiveCard/action` whose `value.action` has the verb and the
 * button's data; `replyToId` is the card message's activity id.
 */
export function teamsCardActionInvoke(
  ctx: TeamsActivityContext,
  action: { verb: string; data: Record<string, unknown>; title?: string },
  replyToId: string,
): Record<string, unknown> {
  return {
    type: 'invoke',
    name: 'adaptiveCard/action',
    value: { action: { type: 'Action.Execute', title: action.title ?? action.verb, verb: action.verb, data: action.data }, trigger: 'manual' },
    ...envelope(ctx, `f:${nextId()}`, replyToId),
    replyToId,
    entities: [CLIENT_INFO],
  };
}

/** A click on an `Action.Submit` button: a `message` without text whose `value` is the button's data. */
export function teamsCardSubmitMessage(ctx: TeamsActivityContext, data: Record<string, unknown>, replyToId: string): Record<string, unknown> {
  return {
    type: 'message',
    value: data,
    ...envelope(ctx, nextId(), replyToId),
    replyToId,
    entities: [CLIENT_INFO],
  };
}
