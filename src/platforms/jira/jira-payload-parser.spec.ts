import { describe, expect, it } from 'vitest';
import { HOSTILE_BODIES, loadFixture } from '../../../test/fixtures/payload-fixtures.js';
import { Platform } from '../platform.js';
import { jiraDeliveryId, jiraEventName } from './jira-delivery.js';
import { parseJiraPayload } from './jira-payload-parser.js';

type Json = Record<string, unknown>;
const headers = { 'x-atlassian-webhook-identifier': '5fdc3b1a-1d7b-4f1e-9d3c-000000000042' };
const parse = (payload: unknown) => parseJiraPayload(jiraEventName(payload), payload, headers);

/** The documented example with its changelog replaced (test-constructed). */
function updatedWith(items: Json[]): Json {
  const payload = loadFixture('jira', 'issue-updated');
  (payload['changelog'] as Json)['items'] = items;
  return payload;
}

describe('jira event name and delivery id', () => {
  it('normalises webhookEvent by dropping the jira: prefix', () => {
    expect(jiraEventName({ webhookEvent: 'jira:issue_updated' })).toBe('issue_updated');
    expect(jiraEventName({ webhookEvent: 'jira:issue_created' })).toBe('issue_created');
    expect(jiraEventName({ webhookEvent: 'comment_created' })).toBe('comment_created');
    expect(jiraEventName({ webhookEvent: 7 })).toBeNull();
    expect(jiraEventName('jira:issue_updated')).toBeNull();
  });

  it('reads X-Atlassian-Webhook-Identifier', () => {
    expect(jiraDeliveryId(headers)).toBe('5fdc3b1a-1d7b-4f1e-9d3c-000000000042');
    expect(jiraDeliveryId({})).toBeNull();
  });
});

describe('parseJiraPayload: issue_updated', () => {
  it('ignores the documented example: its changelog changes only summary and issue type', () => {
    expect(parse(loadFixture('jira', 'issue-updated'))).toEqual({ kind: 'ignored', reason: 'no change that could trigger anything' });
  });

  it('maps a status changelog item to its toString, on the issue key', () => {
    expect(parse(updatedWith([{ field: 'status', fieldtype: 'jira', from: '1', fromString: 'Open', to: '3', toString: 'Ready for Agent' }]))).toEqual({
      kind: 'ticket',
      platform: Platform.Jira,
      eventName: 'issue_updated',
      deliveryId: '5fdc3b1a-1d7b-4f1e-9d3c-000000000042',
      ticket: 'JRA-20002',
      // The example has no fields.project; the key's prefix stands in for it.
      route: { projectKey: 'JRA' },
      change: { type: 'status', status: 'Ready for Agent' },
      changes: [{ type: 'status', status: 'Ready for Agent' }],
    });
  });

  it('maps a labels changelog item to the space-separated toString minus fromString', () => {
    const event = parse(updatedWith([{ field: 'labels', fieldtype: 'jira', fromString: 'UI dialogue', toString: 'UI dialogue security service:done' }]));
    expect(event).toMatchObject({ change: { type: 'labels-added', labels: ['security', 'service:done'] } });
  });

  it('reports labels and status from one edit, labels first', () => {
    const event = parse(
      updatedWith([
        { field: 'status', toString: 'Ready for Agent' },
        { field: 'labels', fromString: '', toString: 'agent' },
      ]),
    );
    expect(event).toMatchObject({
      changes: [
        { type: 'labels-added', labels: ['agent'] },
        { type: 'status', status: 'Ready for Agent' },
      ],
    });
  });

  it('prefers issue.fields.project.key for routing', () => {
    const payload = updatedWith([{ field: 'status', toString: 'Done' }]);
    ((payload['issue'] as Json)['fields'] as Json)['project'] = { key: 'BILL', name: 'Billing' };
    expect(parse(payload)).toMatchObject({ route: { projectKey: 'BILL' } });
  });

  it('ignores label removals and malformed changelog items', () => {
    expect(parse(updatedWith([{ field: 'labels', fromString: 'a b', toString: 'a' }])).kind).toBe('ignored');
    expect(parse(updatedWith([{ field: 'status' }, { field: 7 }, null as unknown as Json])).kind).toBe('ignored');
  });
});

describe('parseJiraPayload: issue_created', () => {
  it('maps fields.status.name, and labels set at creation count as added', () => {
    const payload = loadFixture('jira', 'issue-updated');
    payload['webhookEvent'] = 'jira:issue_created';
    ((payload['issue'] as Json)['fields'] as Json)['status'] = { name: 'Ready for Agent' };
    expect(parse(payload)).toMatchObject({
      kind: 'ticket',
      eventName: 'issue_created',
      ticket: 'JRA-20002',
      changes: [
        { type: 'labels-added', labels: ['UI', 'dialogue', 'move'] },
        { type: 'status', status: 'Ready for Agent' },
      ],
    });
  });
});

describe('parseJiraPayload: comment_created', () => {
  it('maps comment.body (reusing the documented example’s comment) to a ticket comment', () => {
    const payload = loadFixture('jira', 'issue-updated');
    payload['webhookEvent'] = 'comment_created';
    expect(parse(payload)).toMatchObject({
      kind: 'ticket',
      eventName: 'comment_created',
      ticket: 'JRA-20002',
      change: { type: 'comment', body: 'Just in time for AtlasCamp!', author: 'Bryan Rollins [Atlassian]' },
    });
  });

  it('flattens an Atlassian Document Format body to text', () => {
    const payload = loadFixture('jira', 'issue-updated');
    payload['webhookEvent'] = 'comment_created';
    (payload['comment'] as Json)['body'] = {
      type: 'doc',
      version: 1,
      content: [
        { type: 'paragraph', content: [{ type: 'text', text: '@pipeline-service ' }, { type: 'text', text: 'security-scan' }] },
        { type: 'paragraph', content: [{ type: 'text', text: 'thanks' }] },
      ],
    };
    expect(parse(payload)).toMatchObject({ change: { type: 'comment', body: '@pipeline-service security-scan\nthanks' } });
  });
});

describe('parseJiraPayload: everything else', () => {
  it('ignores other events and payloads without issue.key', () => {
    const deleted = loadFixture('jira', 'issue-updated');
    deleted['webhookEvent'] = 'jira:issue_deleted';
    expect(parse(deleted).kind).toBe('ignored');
    expect(parse({ webhookEvent: 'jira:issue_updated', issue: {} }).kind).toBe('ignored');
    expect(parseJiraPayload(null, loadFixture('jira', 'issue-updated'), headers).kind).toBe('ignored');
  });

  it('never throws on hostile bodies', () => {
    for (const eventName of ['issue_created', 'issue_updated', 'comment_created', null]) {
      for (const body of HOSTILE_BODIES) {
        expect(parseJiraPayload(eventName, body, headers).kind).toBe('ignored');
      }
    }
  });
});
