import { describe, expect, it } from 'vitest';
import { HOSTILE_BODIES, githubExample, githubExamples } from '../../../test/fixtures/payload-fixtures.js';
import { Platform } from '../platform.js';
import { githubDeliveryId, githubEventName } from './github-delivery.js';
import { parseGitHubPayload } from './github-payload-parser.js';

const headers = { 'x-github-event': 'issues', 'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958' };
const repo = 'https://github.com/Codertocat/Hello-World';

describe('github event and delivery headers', () => {
  it('reads X-PlatformA-Event or X-GitHub-Event, the neutral name first', () => {
    expect(githubEventName({ 'x-github-event': 'issues' })).toBe('issues');
    expect(githubEventName({ 'x-platforma-event': 'issue_comment' })).toBe('issue_comment');
    expect(githubEventName({ 'x-platforma-event': 'issues', 'x-github-event': 'ping' })).toBe('issues');
    expect(githubEventName({})).toBeNull();
  });

  it('reads X-GitHub-Delivery', () => {
    expect(githubDeliveryId(headers)).toBe('72d3162e-cc78-11e3-81ab-4c9367dc0958');
    expect(githubDeliveryId({})).toBeNull();
  });
});

describe('parseGitHubPayload: tickets', () => {
  it('maps issues labeled (octokit example) to labels-added on the issue number', () => {
    for (const payload of githubExamples('issues', 'labeled')) {
      expect(parseGitHubPayload('issues', payload, headers)).toEqual({
        kind: 'ticket',
        platform: Platform.GitHub,
        eventName: 'issues',
        deliveryId: '72d3162e-cc78-11e3-81ab-4c9367dc0958',
        ticket: '1',
        route: { repositoryUrl: repo },
        change: { type: 'labels-added', labels: ['bug'] },
        changes: [{ type: 'labels-added', labels: ['bug'] }],
      });
    }
  });

  it('passes a service: label through (the trigger decision drops it)', () => {
    const payload = githubExample('issues', 'labeled');
    (payload['label'] as Record<string, unknown>)['name'] = 'service:done';
    const event = parseGitHubPayload('issues', payload, headers);
    expect(event).toMatchObject({ kind: 'ticket', change: { type: 'labels-added', labels: ['service:done'] } });
  });

  it('ignores every other issues action in the octokit examples', () => {
    for (const payload of githubExamples('issues').filter((example) => example['action'] !== 'labeled')) {
      expect(parseGitHubPayload('issues', payload, headers).kind).toBe('ignored');
    }
  });

  it('does not treat an issues event on a pull request as a ticket', () => {
    const payload = githubExample('issues', 'labeled');
    (payload['issue'] as Record<string, unknown>)['pull_request'] = { url: 'https://api.github.com/repos/o/r/pulls/1' };
    expect(parseGitHubPayload('issues', payload, headers)).toEqual({
      kind: 'ignored',
      reason: 'issues event on a pull request is not a ticket',
    });
  });

  it('maps issue_comment created on an issue to a ticket comment', () => {
    const payload = githubExample('issue_comment', 'created');
    const event = parseGitHubPayload('issue_comment', payload, { ...headers, 'x-github-event': 'issue_comment' });
    expect(event).toMatchObject({
      kind: 'ticket',
      ticket: '1',
      route: { repositoryUrl: repo },
      change: { type: 'comment', body: "You are totally right! I'll get this fixed right away.", author: 'Codertocat' },
    });
  });

  it('ignores edited and deleted issue comments', () => {
    for (const action of ['edited', 'deleted']) {
      expect(parseGitHubPayload('issue_comment', githubExample('issue_comment', action), headers).kind).toBe('ignored');
    }
  });
});

describe('parseGitHubPayload: pull requests', () => {
  it('maps issue_comment created on a pull request to a pr-comment without head details', () => {
    const payload = githubExample('issue_comment', 'created');
    // GitHub marks the issue view of a pull request with `issue.pull_request` (octokit has no such example).
    (payload['issue'] as Record<string, unknown>)['pull_request'] = { url: 'https://api.github.com/repos/Codertocat/Hello-World/pulls/1' };
    const event = parseGitHubPayload('issue_comment', payload, headers);
    expect(event).toEqual({
      kind: 'pr-comment',
      platform: Platform.GitHub,
      eventName: 'issue_comment',
      deliveryId: '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      route: { repositoryUrl: repo },
      pullRequest: { number: 1, headBranch: null, sameRepository: null, author: { login: 'Codertocat', id: '21031067', displayName: null } },
      comment: {
        id: '492700400',
        body: "You are totally right! I'll get this fixed right away.",
        author: { login: 'Codertocat', id: '21031067', displayName: null },
        authorAssociation: 'OWNER',
        system: false,
      },
    });
  });

  it('maps pull_request_review_comment created with head branch and same-repository flag', () => {
    for (const payload of githubExamples('pull_request_review_comment', 'created')) {
      const event = parseGitHubPayload('pull_request_review_comment', payload, headers);
      expect(event).toMatchObject({
        kind: 'pr-comment',
        pullRequest: { number: 2, headBranch: 'changes', sameRepository: true, author: { login: 'Codertocat' } },
        comment: { authorAssociation: 'OWNER', author: { login: 'Codertocat' }, system: false },
      });
    }
  });

  it('flags a pull request from a fork, and one whose fork was deleted', () => {
    const payload = githubExample('pull_request_review_comment', 'created');
    const head = (payload['pull_request'] as { head: Record<string, unknown> }).head;
    head['repo'] = { id: 1, full_name: 'someone/Hello-World' };
    expect(parseGitHubPayload('pull_request_review_comment', payload, headers)).toMatchObject({ pullRequest: { sameRepository: false } });
    head['repo'] = null;
    expect(parseGitHubPayload('pull_request_review_comment', payload, headers)).toMatchObject({ pullRequest: { sameRepository: false } });
  });

  it('maps pull_request labeled to pr-labeled', () => {
    const payload = githubExample('pull_request', 'labeled');
    expect(parseGitHubPayload('pull_request', payload, headers)).toMatchObject({
      kind: 'pr-labeled',
      pullRequest: { number: 2, headBranch: 'changes', sameRepository: true },
      addedLabels: ['bug'],
      currentLabels: ['bug'],
      action: 'labeled',
    });
  });

  it('ignores other pull_request actions (opening or updating starts nothing)', () => {
    for (const payload of githubExamples('pull_request').filter((example) => example['action'] !== 'labeled')) {
      expect(parseGitHubPayload('pull_request', payload, headers).kind).toBe('ignored');
    }
  });

  it('maps pull_request_review submitted to pr-review with a lower-cased state', () => {
    const payload = githubExample('pull_request_review', 'submitted');
    expect(parseGitHubPayload('pull_request_review', payload, headers)).toMatchObject({
      kind: 'pr-review',
      pullRequest: { number: 2, headBranch: 'changes' },
      review: { state: 'commented', reviewer: { login: 'Codertocat' }, authorAssociation: 'OWNER' },
    });
    (payload['review'] as Record<string, unknown>)['state'] = 'CHANGES_REQUESTED';
    expect(parseGitHubPayload('pull_request_review', payload, headers)).toMatchObject({ review: { state: 'changes_requested' } });
  });

  it('ignores a dismissed review', () => {
    expect(parseGitHubPayload('pull_request_review', githubExample('pull_request_review', 'dismissed'), headers).kind).toBe('ignored');
  });
});

describe('parseGitHubPayload: everything else', () => {
  it('ignores events it does not use and a missing event name', () => {
    expect(parseGitHubPayload('ping', { zen: 'Keep it logically awesome.' }, headers)).toEqual({
      kind: 'ignored',
      reason: "GitHub event 'ping' is not used",
    });
    expect(parseGitHubPayload('push', githubExamples('push')[0], headers).kind).toBe('ignored');
    expect(parseGitHubPayload(null, githubExample('issues', 'labeled'), headers).kind).toBe('ignored');
  });

  it('never throws on hostile bodies, for any event it handles', () => {
    for (const eventName of ['issues', 'issue_comment', 'pull_request_review_comment', 'pull_request', 'pull_request_review', 'x']) {
      for (const body of HOSTILE_BODIES) {
        expect(parseGitHubPayload(eventName, body, headers).kind).toBe('ignored');
      }
    }
  });

  it('ignores an issue whose number or label is of the wrong type', () => {
    const payload = githubExample('issues', 'labeled');
    (payload['issue'] as Record<string, unknown>)['number'] = 'one';
    expect(parseGitHubPayload('issues', payload, headers).kind).toBe('ignored');
    const other = githubExample('issues', 'labeled');
    other['label'] = { name: '' };
    expect(parseGitHubPayload('issues', other, headers).kind).toBe('ignored');
  });
});
