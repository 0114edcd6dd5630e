import type { AdapterPostableMessage } from 'chat';
import { chatSdk } from './chat-sdk.js';
import { ANSWER_ACTION, type ChatContent } from './run-status-text.js';

/** Platform-neutral content → what the Chat SDK posts: markdown, or a card when there are buttons. */
export function toPostable(content: ChatContent): AdapterPostableMessage {
  if (content.buttons.length === 0) return { markdown: content.text };
  const { Actions, Button, Card, CardText } = chatSdk().chat;
  return Card({
    children: [
      CardText(content.text),
      Actions(content.buttons.map((b, i) => Button({ id: `${b.action ?? ANSWER_ACTION}:${i}`, label: b.label, value: b.value }))),
    ],
  });
}

/** `pipeline-service-answer:2` → `pipeline-service-answer`. */
export function actionKind(actionId: string): string {
  return actionId.replace(/:\d+$/, '');
}
