import { COMMAND_COMMENT_ANSWER_ACT } from './answer-acts.js';
import { platformOf } from './platform-registry.js';

/** What a person does on `platform`'s pull request to end a run's wait (a comment command where one reaches the service, and for a name the service does not know). */
export function pullRequestAnswerAct(platform: string): string {
  return platformOf(platform)?.codeHost?.answerAct ?? COMMAND_COMMENT_ANSWER_ACT;
}
