import { GITHUB_PLATFORM } from './github/github-platform.js';
import { platformOf } from './platform-registry.js';

/** What a person does on `platform`'s pull request to end a run's wait (a comment command where one reaches the service; GitHub's for another name). */
export function pullRequestAnswerAct(platform: string): string {
  return platformOf(platform)?.codeHost?.answerAct ?? GITHUB_PLATFORM.codeHost!.answerAct;
}
