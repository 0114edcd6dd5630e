import { describe, expect, it } from 'vitest';
import { githubExample, loadFixture } from '../../test/fixtures/payload-fixtures.js';
import { isServiceHookEnvelope } from './azure-devops/azure-devops-delivery.js';
import { detectPlatform } from './platform-detection.js';
import { Platform } from './platform.js';

describe('detectPlatform', () => {
  it('detects platform A by X-GitHub-Event or X-PlatformA-Event', () => {
    const body = githubExample('issues', 'labeled');
    expect(detectPlatform({ 'x-github-event': 'issues' }, body)).toBe(Platform.GitHub);
    expect(detectPlatform({ 'x-platforma-event': 'issues' }, body)).toBe(Platform.GitHub);
  });

  it('detects platform B by X-Gitlab-Event or X-PlatformB-Event', () => {
    const body = loadFixture('gitlab', 'issue-hook');
    expect(detectPlatform({ 'x-gitlab-event': 'Issue Hook' }, body)).toBe(Platform.GitLab);
    expect(detectPlatform({ 'x-platformb-event': 'Issue Hook' }, body)).toBe(Platform.GitLab);
  });

  it('detects platform C by the service-hook envelope (publisherId + eventType)', () => {
    for (const name of ['workitem-updated', 'workitem-commented', 'git-pullrequest-updated']) {
      expect(detectPlatform({ 'content-type': 'application/json' }, loadFixture('azure-devops', name))).toBe(Platform.AzureDevOps);
    }
  });

  it('never detects platform D (served only on its own route)', () => {
    const jira = loadFixture('jira', 'issue-updated');
    expect(detectPlatform({ 'x-atlassian-webhook-identifier': 'abc', 'x-hub-signature': 'sha256=00' }, jira)).toBeNull();
  });

  it('prefers the event header over the body shape and refuses an ambiguous A+B delivery', () => {
    const envelope = loadFixture('azure-devops', 'workitem-updated');
    expect(detectPlatform({ 'x-github-event': 'issues' }, envelope)).toBe(Platform.GitHub);
    expect(detectPlatform({ 'x-github-event': 'issues', 'x-gitlab-event': 'Issue Hook' }, {})).toBeNull();
  });

  it('returns null for anything else, blank headers and hostile bodies included', () => {
    expect(detectPlatform({}, {})).toBeNull();
    expect(detectPlatform({ 'x-github-event': '  ' }, null)).toBeNull();
    expect(detectPlatform({}, { eventType: 'workitem.updated' })).toBeNull();
    expect(detectPlatform({}, { publisherId: 'tfs', eventType: 5 })).toBeNull();
    expect(detectPlatform({}, [{ publisherId: 'tfs', eventType: 'x' }])).toBeNull();
    expect(detectPlatform({ 'x-platformc-event': 'workitem.updated' }, 'text')).toBeNull();
  });
});

describe('isServiceHookEnvelope', () => {
  it('needs both publisherId and eventType as non-blank strings', () => {
    expect(isServiceHookEnvelope({ publisherId: 'tfs', eventType: 'workitem.updated' })).toBe(true);
    expect(isServiceHookEnvelope({ publisherId: '', eventType: 'workitem.updated' })).toBe(false);
    expect(isServiceHookEnvelope(null)).toBe(false);
  });
});
