import { describe, expect, it } from 'vitest';
import { projectConfig, triggerConfig } from '../../test/fixtures/webhook-config.js';
import type { PullRequestLabeledEvent } from '../platforms/inbound-event.js';
import { Platform } from '../platforms/platform.js';
import { decideLabelTrigger } from './label-trigger.js';

const shop = projectConfig('shop', {
  tracker: Platform.GitHub,
  repos: [{ url: 'https://github.com/acme/shop', platform: Platform.GitHub }, { url: 'https://gitlab.example.com/acme/shop-api', platform: Platform.GitLab }],
  triggers: { [Platform.GitHub]: triggerConfig({ pr_trigger_label: 'Sec-Check' }), [Platform.GitLab]: triggerConfig({}) },
});

function labeled(platform: Platform, options: { added?: string[]; current?: string[]; action?: string | null; url?: string; number?: number }): PullRequestLabeledEvent {
  return {
    kind: 'pr-labeled', platform, eventName: 'test', deliveryId: null,
    route: { repositoryUrl: options.url ?? (platform === Platform.GitHub ? 'https://github.com/acme/shop' : 'https://gitlab.example.com/acme/shop-api') },
    pullRequest: { number: options.number ?? 7, headBranch: 'feature/x', sameRepository: true, author: null },
    addedLabels: options.added ?? [], currentLabels: options.current ?? options.added ?? [], action: options.action ?? null,
  };
}

describe('decideLabelTrigger', () => {
  it('starts security-scan of the pull request for security-review, case-insensitively', () => {
    expect(decideLabelTrigger(labeled(Platform.GitHub, { added: ['Security-Review'], action: 'labeled' }), shop))
      .toEqual({ verdict: 'start', target: { repo: 'shop-repo-0', number: 7 }, pipeline: 'security-scan', label: 'Security-Review' });
  });

  it("adds the project's pr_trigger_label to the built-in one, never replacing it", () => {
    expect(decideLabelTrigger(labeled(Platform.GitHub, { added: ['sec-check'], action: 'labeled' }), shop)).toMatchObject({ verdict: 'start', label: 'sec-check' });
    expect(decideLabelTrigger(labeled(Platform.GitHub, { added: ['security-review'], action: 'labeled' }), shop)).toMatchObject({ verdict: 'start' });
  });

  it('on GitHub looks only at the label just added; on GitLab at every label the merge request carries', () => {
    expect(decideLabelTrigger(labeled(Platform.GitHub, { added: ['bug'], current: ['bug', 'security-review'], action: 'labeled' }), shop)).toMatchObject({ verdict: 'filtered' });
    expect(decideLabelTrigger(labeled(Platform.GitLab, { added: [], current: ['backend', 'security-review'], action: 'update' }), shop))
      .toEqual({ verdict: 'start', target: { repo: 'shop-repo-1', number: 7 }, pipeline: 'security-scan', label: 'security-review' });
  });

  it('does not scan a merge request that is closed or merged', () => {
    expect(decideLabelTrigger(labeled(Platform.GitLab, { current: ['security-review'], action: 'merge' }), shop)).toMatchObject({ verdict: 'filtered', reason: expect.stringContaining('merged') });
    expect(decideLabelTrigger(labeled(Platform.GitLab, { current: ['security-review'], action: 'close' }), shop)).toMatchObject({ verdict: 'filtered', reason: expect.stringContaining('closed') });
  });

  it('never triggers on the service: labels, nor on other labels', () => {
    expect(decideLabelTrigger(labeled(Platform.GitHub, { added: ['service:security-review'], action: 'labeled' }), shop)).toMatchObject({ verdict: 'filtered' });
    expect(decideLabelTrigger(labeled(Platform.GitHub, { added: ['security'], action: 'labeled' }), shop)).toMatchObject({ verdict: 'filtered' });
  });

  it('rejects an unknown project and a repository the project does not declare', () => {
    expect(decideLabelTrigger(labeled(Platform.GitHub, { added: ['security-review'] }), null)).toEqual({ verdict: 'rejected', reason: 'UnknownProject' });
    expect(decideLabelTrigger(labeled(Platform.GitHub, { added: ['security-review'], url: 'https://github.com/acme/other' }), shop)).toMatchObject({ verdict: 'rejected' });
  });
});
