import { PULL_REQUEST_LABEL_PIPELINE } from '../pipelines/built-in-pipelines.js';
import type { ProjectConfig } from '../config/service-config.js';
import type { PullRequestLabeledEvent } from '../platforms/inbound-event.js';
import { traitsOf } from '../platforms/platform-traits.registry.js';
import { SERVICE_LABEL_PREFIX } from '../platforms/service-marker.js';
import type { PullRequestTarget } from '../runs/pipeline-request.js';
import { repositoryUrlKey } from './repository-url.js';

/** The built-in label that starts a scan of a pull request; a project's `pr_trigger_label` adds to it. */
export const SECURITY_REVIEW_LABEL = 'security-review';

/** GitLab merge-request actions after which the merge request is no longer open. */
const CLOSING_ACTIONS = new Set(['close', 'merge']);

export type LabelTriggerDecision =
  | { verdict: 'filtered'; reason: string }
  | { verdict: 'rejected'; reason: string }
  | { verdict: 'start'; target: PullRequestTarget; pipeline: string; label: string };

/**
 * Spec, "Label trigger": the label `security-review` (or the project's `pr_trigger_label`,
 * case-insensitive) on a pull request starts `security-scan` of its head branch in full.
 * GitHub: `pull_request` `labeled` with one of those labels (the parser passes only `labeled`).
 * GitLab: any update of a merge request that carries one of them (a closed or merged one is
 * not scanned). The service's own `service:` labels never trigger. Forks are scanned too: the
 * run fetches the head through the base repository and nothing is pushed.
 */
export function decideLabelTrigger(event: PullRequestLabeledEvent, project: ProjectConfig | null): LabelTriggerDecision {
  if (project === null) return { verdict: 'rejected', reason: 'UnknownProject' };
  const wanted = new Set([SECURITY_REVIEW_LABEL, project.triggers[event.platform]?.pr_trigger_label?.trim().toLowerCase()]
    .filter((label): label is string => typeof label === 'string' && label.length > 0));
  const allLabels = traitsOf(event.platform).labelEventsCarryAllLabels;
  const candidates = allLabels ? event.currentLabels : event.addedLabels;
  const label = candidates.find((l) => !l.toLowerCase().startsWith(SERVICE_LABEL_PREFIX) && wanted.has(l.trim().toLowerCase()));
  if (label === undefined) {
    return { verdict: 'filtered', reason: `no pull-request trigger label (${[...wanted].join(', ')}) ${allLabels ? 'on the merge request' : 'added'}` };
  }
  if (event.action !== null && CLOSING_ACTIONS.has(event.action)) {
    return { verdict: 'filtered', reason: `merge request ${event.action === 'merge' ? 'merged' : 'closed'}: nothing to scan` };
  }
  const key = event.route.repositoryUrl === undefined ? null : repositoryUrlKey(event.route.repositoryUrl);
  const repo = project.repos.find((r) => r.platform === event.platform && key !== null && repositoryUrlKey(r.url) === key);
  if (repo === undefined) return { verdict: 'rejected', reason: `the pull request's repository is not declared in project '${project.name}'` };
  return { verdict: 'start', target: { repo: repo.name, number: event.pullRequest.number }, pipeline: PULL_REQUEST_LABEL_PIPELINE, label };
}
