import { Platform } from './platform.js';

/** The act that answers a parked run from its pull request, by host (Markdown). */
const ACT: Partial<Record<Platform, string>> = {
  [Platform.GitHub]: 'comment `/sa` (instructions may follow it)',
  [Platform.GitLab]: 'comment `/sa` (instructions may follow it)',
  // Azure DevOps's pull-request comments never reach the service: a change of vote does.
  [Platform.AzureDevOps]: 'vote **Wait for author** (reset your vote first if it already says so: only a change of vote is sent)',
};

/** What a person does on `platform`'s pull request to end a run's wait (a comment command where one reaches the service). */
export function pullRequestAnswerAct(platform: string): string {
  return ACT[platform as Platform] ?? ACT[Platform.GitHub]!;
}
