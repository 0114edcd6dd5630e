/**
 * Inbound Google Chat events as Chat posts them to an HTTP endpoint.
 *
 * Two documented shapes exist. A Chat app built as a Google Workspace add-on (the shape the Chat
 * SDK's adapter reads) receives the add-on event object: `commonEventObject` (`hostApp: CHAT`,
 * and for a card click `invokedFunction` + `parameters`), `authorizationEventObject`, and `chat`
 * with `user`, `eventTime` and one payload (`messagePayload`, `buttonClickedPayload`, …). A
 * classic interaction-event Chat app receives `{type: MESSAGE | CARD_CLICKED | …, space, message,
 * user, action, common}`; `legacyMessageEvent` builds that one, to show what the adapter ignores.
 */

export interface ChatUser {
  /** `users/{id}`. */
  name: string;
  displayName: string;
  email: string;
  type: 'HUMAN' | 'BOT';
}

export interface ChatSpace {
  /** `spaces/{id}`. */
  name: string;
  type: 'ROOM' | 'DM';
  spaceType: 'SPACE' | 'DIRECT_MESSAGE' | 'GROUP_CHAT';
  displayName?: string;
  singleUserBotDm?: boolean;
}

export const CHAT_USER: ChatUser = { name: 'users/115983473629156201734', displayName: 'Ana Lima', email: 'ana.lima@example.com', type: 'HUMAN' };
export const CHAT_SPACE: ChatSpace = { name: 'spaces/AAQAxyz0Bcd', type: 'ROOM', spaceType: 'SPACE', displayName: 'Billing team' };

export interface ChatApp {
  /** The app's user resource name (`users/…`). */
  name: string;
  displayName: string;
}

let sequence = 1;
function messageName(space: ChatSpace): string {
  const id = `${(sequence++).toString(36).padStart(11, 'x')}`;
  return `${space.name}/messages/${id}.${id}`;
}

function common(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { userLocale: 'en', hostApp: 'CHAT', platform: 'WEB', timeZone: { id: 'Europe/Berlin', offset: 3_600_000 }, ...extra };
}

/** The message resource Chat embeds in an event; `@app` mention as Chat renders it, with its annotation. */
function messageResource(space: ChatSpace, user: ChatUser, text: string, options: { mention?: ChatApp; threadName?: string }): Record<string, unknown> {
  const name = messageName(space);
  const mentionText = options.mention ? `@${options.mention.displayName}` : '';
  const fullText = options.mention ? `${mentionText} ${text}` : text;
  const message: Record<string, unknown> = {
    name,
    sender: user,
    createTime: new Date().toISOString(),
    text: fullText,
    formattedText: fullText,
    argumentText: options.mention ? ` ${text}` : text,
    thread: { name: options.threadName ?? name.replace('/messages/', '/threads/').split('.')[0] },
    space: { name: space.name, type: space.type, spaceType: space.spaceType },
  };
  if (options.mention) {
    message['annotations'] = [
      {
        type: 'USER_MENTION',
        startIndex: 0,
        length: mentionText.length,
        userMention: { user: { name: options.mention.name, displayName: options.mention.displayName, type: 'BOT' }, type: 'MENTION' },
      },
    ];
  }
  return message;
}

/** A user's message to the app (add-on shape): `chat.messagePayload`. */
export function chatMessageEvent(
  text: string,
  options: { space?: ChatSpace; user?: ChatUser; mention?: ChatApp; threadName?: string; systemIdToken?: string } = {},
): Record<string, unknown> {
  const space = options.space ?? CHAT_SPACE;
  const user = options.user ?? CHAT_USER;
  return {
    commonEventObject: common(),
    authorizationEventObject: { systemIdToken: options.systemIdToken ?? '' },
    chat: {
      user,
      eventTime: new Date().toISOString(),
      messagePayload: {
        space,
        message: messageResource(space, user, text, { mention: options.mention, threadName: options.threadName }),
      },
    },
  };
}

/**
 * A click on a card button the app sent (add-on shape): `commonEventObject.invokedFunction` is the
 * button's `onClick.action.function`, its `parameters` the button's key/value pairs as a map, and
 * `chat.buttonClickedPayload` names the space and the card's message.
 */
export function chatCardClickedEvent(
  click: { invokedFunction: string; parameters: Record<string, string> },
  cardMessage: { name: string; threadName: string },
  options: { space?: ChatSpace; user?: ChatUser } = {},
): Record<string, unknown> {
  const space = options.space ?? CHAT_SPACE;
  const user = options.user ?? CHAT_USER;
  return {
    commonEventObject: common({ invokedFunction: click.invokedFunction, parameters: click.parameters }),
    authorizationEventObject: { systemIdToken: '' },
    chat: {
      user,
      eventTime: new Date().toISOString(),
      buttonClickedPayload: {
        space,
        message: { name: cardMessage.name, thread: { name: cardMessage.threadName }, space: { name: space.name } },
        user,
        isDialogEvent: false,
      },
    },
  };
}

/** A classic interaction event (`type: MESSAGE`), for apps not built as add-ons. */
export function legacyMessageEvent(text: string, options: { space?: ChatSpace; user?: ChatUser; mention?: ChatApp } = {}): Record<string, unknown> {
  const space = options.space ?? CHAT_SPACE;
  const user = options.user ?? CHAT_USER;
  return {
    type: 'MESSAGE',
    eventTime: new Date().toISOString(),
    space,
    message: messageResource(space, user, text, { mention: options.mention }),
    user,
    common: common(),
  };
}
