import { describe, expect, it } from 'vitest';
import { HOSTILE_BODIES, loadFixture } from '../../../test/fixtures/payload-fixtures.js';
import { Platform } from '../platform.js';
import { azureDevOpsDeliveryId, azureDevOpsEventName } from './azure-devops-delivery.js';
import { parseAzureDevOpsPayload } from './azure-devops-payload-parser.js';

type Json = Record<string, unknown>;
const fieldsOf = (payload: Json) => (payload['resource'] as { fields: Json }).fields;
const parse = (payload: unknown, headers = {}) =>
  parseAzureDevOpsPayload(azureDevOpsEventName(payload, headers), payload, headers);

describe('azure devops event name and delivery id', () => {
  it('reads eventType from the body, else X-PlatformC-Event', () => {
    expect(azureDevOpsEventName({ eventType: 'workitem.updated' }, { 'x-platformc-event': 'other' })).toBe('workitem.updated');
    expect(azureDevOpsEventName({}, { 'x-platformc-event': 'workitem.commented' })).toBe('workitem.commented');
    expect(azureDevOpsEventName(null, {})).toBeNull();
  });

  it('takes the delivery id from the envelope id', () => {
    expect(azureDevOpsDeliveryId(loadFixture('azure-devops', 'workitem-updated'))).toBe('27646e0e-b520-4d2b-9411-bba7524947cd');
    expect(azureDevOpsDeliveryId([])).toBeNull();
  });
});

describe('parseAzureDevOpsPayload: workitem.updated', () => {
  it('maps the documented example to a status change on work item 5 in team project FabrikamCloud', () => {
    expect(parse(loadFixture('azure-devops', 'workitem-updated'))).toEqual({
      kind: 'ticket',
      platform: Platform.AzureDevOps,
      eventName: 'workitem.updated',
      deliveryId: '27646e0e-b520-4d2b-9411-bba7524947cd',
      // The sample's workItemId is 0 and resource.id is the update number 2; revision.id is the item.
      ticket: '5',
      route: { teamProject: 'FabrikamCloud' },
      change: { type: 'status', status: 'Approved' },
      changes: [{ type: 'status', status: 'Approved' }],
    });
  });

  it('prefers a positive workItemId (real deliveries carry it)', () => {
    const payload = loadFixture('azure-devops', 'workitem-updated');
    (payload['resource'] as Json)['workItemId'] = 42;
    expect(parse(payload)).toMatchObject({ ticket: '42' });
  });

  it('falls back to resource.id and resource.fields for the team project when no revision is sent', () => {
    const payload = loadFixture('azure-devops', 'workitem-updated');
    const resource = payload['resource'] as Json;
    delete resource['revision'];
    fieldsOf(payload)['System.TeamProject'] = 'Other Project';
    expect(parse(payload)).toMatchObject({ ticket: '2', route: { teamProject: 'Other Project' } });
  });

  it('reports tags added (newValue minus oldValue, "; "-separated), labels before status', () => {
    const payload = loadFixture('azure-devops', 'workitem-updated');
    fieldsOf(payload)['System.Tags'] = { oldValue: 'frontend; Agent', newValue: 'frontend; agent; security; service:done' };
    const event = parse(payload);
    expect(event).toMatchObject({
      kind: 'ticket',
      change: { type: 'labels-added', labels: ['security', 'service:done'] },
      changes: [
        { type: 'labels-added', labels: ['security', 'service:done'] },
        { type: 'status', status: 'Approved' },
      ],
    });
  });

  it('treats tags on an item that had none as all added', () => {
    const payload = loadFixture('azure-devops', 'workitem-updated');
    delete fieldsOf(payload)['System.State'];
    fieldsOf(payload)['System.Tags'] = { newValue: 'ready-for-agent' };
    expect(parse(payload)).toMatchObject({ change: { type: 'labels-added', labels: ['ready-for-agent'] } });
  });

  it('ignores an update that changes neither state nor tags (tag removal included)', () => {
    const payload = loadFixture('azure-devops', 'workitem-updated');
    delete fieldsOf(payload)['System.State'];
    fieldsOf(payload)['System.Tags'] = { oldValue: 'a; b', newValue: 'a' };
    expect(parse(payload)).toEqual({ kind: 'ignored', reason: 'work item update changes neither state nor tags' });
    const same = loadFixture('azure-devops', 'workitem-updated');
    fieldsOf(same)['System.State'] = { oldValue: 'Active', newValue: 'Active' };
    expect(parse(same).kind).toBe('ignored');
  });

  it('does not read a comment from System.History on workitem.updated', () => {
    const payload = loadFixture('azure-devops', 'workitem-updated');
    delete fieldsOf(payload)['System.State'];
    fieldsOf(payload)['System.History'] = { newValue: '@pipeline-service go' };
    expect(parse(payload).kind).toBe('ignored');
  });
});

describe('parseAzureDevOpsPayload: workitem.commented', () => {
  it('maps the documented example to a ticket comment', () => {
    expect(parse(loadFixture('azure-devops', 'workitem-commented'))).toMatchObject({
      kind: 'ticket',
      ticket: '5',
      deliveryId: 'fb2617ed-60df-4518-81fa-749faa6c5cd6',
      route: { teamProject: 'FabrikamCloud' },
      change: { type: 'comment', body: 'This is a great new idea', author: 'Jamal Hartnett' },
    });
  });

  it('reads an identity object in System.ChangedBy', () => {
    const payload = loadFixture('azure-devops', 'workitem-commented');
    fieldsOf(payload)['System.ChangedBy'] = { displayName: 'Ada Admin', uniqueName: 'ada@example.com' };
    expect(parse(payload)).toMatchObject({ change: { author: 'Ada Admin' } });
  });

  it('ignores a comment event without System.History', () => {
    const payload = loadFixture('azure-devops', 'workitem-commented');
    delete fieldsOf(payload)['System.History'];
    expect(parse(payload).kind).toBe('ignored');
  });
});

describe('parseAzureDevOpsPayload: git.pullrequest.updated', () => {
  const voteHeaders = { 'x-service-change': 'review-vote' };

  it('ignores a pull request update without the review-vote subscription header (documented sample)', () => {
    expect(parse(loadFixture('azure-devops', 'git-pullrequest-updated'))).toEqual({
      kind: 'ignored',
      reason: 'pull request update that is not a review-vote change',
    });
  });

  it('maps a review-vote delivery to pr-review-vote with every reviewer’s vote', () => {
    const payload = loadFixture('azure-devops', 'git-pullrequest-updated');
    // Test-constructed: a person reviewer voting "waiting for author" beside the documented team reviewer.
    (payload['resource'] as { reviewers: unknown[] }).reviewers.push({
      vote: -5,
      id: 'b7a1c3d2-0000-4000-8000-000000000005',
      displayName: 'Rita Reviewer',
      uniqueName: 'rita@fabrikam.example',
    });
    expect(parse(payload, voteHeaders)).toEqual({
      kind: 'pr-review-vote',
      platform: Platform.AzureDevOps,
      eventName: 'git.pullrequest.updated',
      deliveryId: 'af07be1b-f3ad-44c8-a7f1-c4835f2df06b',
      route: { repositoryUrl: 'https://dev.azure.com/fabrikam/DefaultCollection/_git/Fabrikam', teamProject: 'Fabrikam' },
      pullRequest: {
        number: 1,
        headBranch: 'mytopic',
        sameRepository: true,
        author: { login: 'fabrikamfiber4@hotmail.com', id: '54d125f7-69f7-4191-904f-c5b96b6261c8', displayName: 'Jamal Hartnett' },
      },
      reviewers: [
        {
          reviewer: {
            login: 'vstfs:///Classification/TeamProject/f0811a3b-8c8a-4e43-a3bf-9a049b4835bd\\Mobile Team',
            id: '2ea2d095-48f9-4cd6-9966-62f6f574096c',
            displayName: '[Mobile]\\Mobile Team',
          },
          vote: 0,
          isContainer: true,
        },
        {
          reviewer: { login: 'rita@fabrikam.example', id: 'b7a1c3d2-0000-4000-8000-000000000005', displayName: 'Rita Reviewer' },
          vote: -5,
          isContainer: false,
        },
      ],
      summary: 'Jamal Hartnett marked the pull request as completed',
    });
  });

  it('flags a pull request from a fork', () => {
    const payload = loadFixture('azure-devops', 'git-pullrequest-updated');
    (payload['resource'] as Json)['forkSource'] = { name: 'refs/heads/mytopic', repository: { id: 'fork' } };
    expect(parse(payload, voteHeaders)).toMatchObject({ pullRequest: { sameRepository: false } });
  });
});

describe('parseAzureDevOpsPayload: everything else', () => {
  it('ignores other event types and envelopes without a resource', () => {
    const created = loadFixture('azure-devops', 'workitem-commented');
    created['eventType'] = 'workitem.created';
    expect(parse(created).kind).toBe('ignored');
    expect(parse({ eventType: 'workitem.updated', publisherId: 'tfs' }).kind).toBe('ignored');
    expect(parseAzureDevOpsPayload(null, loadFixture('azure-devops', 'workitem-updated'), {}).kind).toBe('ignored');
  });

  it('never throws on hostile bodies', () => {
    for (const eventName of ['workitem.updated', 'workitem.commented', 'git.pullrequest.updated', null]) {
      for (const body of HOSTILE_BODIES) {
        expect(parseAzureDevOpsPayload(eventName, body, { 'x-service-change': 'review-vote' }).kind).toBe('ignored');
      }
    }
  });

  it('skips malformed reviewer entries', () => {
    const payload = loadFixture('azure-devops', 'git-pullrequest-updated');
    (payload['resource'] as Json)['reviewers'] = [null, 'x', { vote: 'ten' }, { vote: 10, uniqueName: 'ok@x' }];
    expect(parse(payload, { 'x-service-change': 'review-vote' })).toMatchObject({
      reviewers: [{ reviewer: { login: 'ok@x' }, vote: 10, isContainer: false }],
    });
  });
});
