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

  it('routes by the key\'s project when issue.fields.project.key agrees with it (case-insensitive)', () => {
    for (const project of ['JRA', 'jra']) {
      const payload = updatedWith([{ field: 'status', toString: 'Done' }]);
      ((payload['issue'] as Json)['fields'] as Json)['project'] = { key: project, name: 'Jira' };
      expect(parse(payload)).toMatchObject({ kind: 'ticket', ticket: 'JRA-20002', route: { projectKey: 'JRA' } });
    }
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

/** The documented example moved to `Ready for Agent`, with `issue.key` (and `fields.project.key`) replaced. */
function keyed(key: unknown, projectKey?: unknown): Json {
  const payload = updatedWith([{ field: 'status', toString: 'Ready for Agent' }]);
  const issue = payload['issue'] as Json;
  issue['key'] = key;
  if (projectKey !== undefined) (issue['fields'] as Json)['project'] = { key: projectKey, name: 'Some project' };
  return payload;
}

describe('parseJiraPayload: issue keys', () => {
  it.each(['OPS-1', 'ops-1', 'Ops-1', 'oPs-1', ' OPS-1 '])('normalises %j to the one ticket OPS-1 in project OPS', (key) => {
    expect(parse(keyed(key))).toMatchObject({ kind: 'ticket', ticket: 'OPS-1', route: { projectKey: 'OPS' } });
  });

  it('accepts the longest keys Jira can produce: a 255-character project key, an 18-digit number', () => {
    const project = `A${'B_9'.repeat(84)}CD`;
    expect(project).toHaveLength(255);
    const key = `${project}-123456789012345678`;
    expect(parse(keyed(key))).toMatchObject({ kind: 'ticket', ticket: key, route: { projectKey: project } });
  });

  it.each([
    ['a leading zero', 'OPS-01', 'issue.key OPS-01 is not a Jira issue key'],
    ['issue number 0', 'OPS-0', 'issue.key OPS-0 is not a Jira issue key'],
    ['a path', '../../x?y', 'issue.key "../../x?y" is not a Jira issue key'],
    ['a NUL', 'OPS-1\u0000', 'issue.key "OPS-1\\u0000" is not a Jira issue key'],
    ['no number', 'OPS', 'issue.key OPS is not a Jira issue key'],
    ['two dashes', 'OPS-1-2', 'issue.key OPS-1-2 is not a Jira issue key'],
    ['a digit first', '1OPS-2', 'issue.key 1OPS-2 is not a Jira issue key'],
    ['a numeric issue id', '10002', 'issue.key 10002 is not a Jira issue key'],
    ['a 19-digit number', 'OPS-1234567890123456789', 'issue.key OPS-1234567890123456789 is not a Jira issue key'],
    ['a Kelvin sign (upper-cases to K)', '\u212AEY-1', 'issue.key "\u212AEY-1" is not a Jira issue key'],
    ['a dotless i (upper-cases to I)', 'J\u0131RA-1', 'issue.key "J\u0131RA-1" is not a Jira issue key'],
    ['inner whitespace', 'OPS -1', 'issue.key "OPS -1" is not a Jira issue key'],
  ])('ignores a key with %s, naming it escaped in the reason', (_what, key, reason) => {
    expect(parse(keyed(key))).toEqual({ kind: 'ignored', reason });
  });

  it('ignores a 5 KB key with a reason that quotes only its first 64 characters', () => {
    const key = `OPS-${'9'.repeat(5000)}`;
    expect(parse(keyed(key))).toEqual({ kind: 'ignored', reason: `issue.key ${JSON.stringify(key.slice(0, 64))}… is not a Jira issue key` });
  });

  it('ignores a 256-character project key', () => {
    expect(parse(keyed(`${'A'.repeat(256)}-1`)).kind).toBe('ignored');
  });

  it('ignores a key that is no string', () => {
    for (const key of [7, null, ['OPS-1'], { key: 'OPS-1' }]) {
      expect(parse(keyed(key))).toEqual({ kind: 'ignored', reason: 'issue_updated without issue.key' });
    }
  });
});

describe('parseJiraPayload: issue key and project must agree', () => {
  it('ignores an issue whose key belongs to another project than fields.project.key', () => {
    expect(parse(keyed('BILL-3', 'OPS'))).toEqual({ kind: 'ignored', reason: 'issue key BILL-3 does not belong to project OPS' });
    expect(parse(keyed('bill-3', 'ops'))).toEqual({ kind: 'ignored', reason: 'issue key BILL-3 does not belong to project ops' });
    // A prefix is no project: BIL is not BILL.
    expect(parse(keyed('BILL-3', 'BIL'))).toEqual({ kind: 'ignored', reason: 'issue key BILL-3 does not belong to project BIL' });
  });

  it('quotes a hostile fields.project.key in the reason, cut to 64 characters', () => {
    expect(parse(keyed('BILL-3', 'OPS\u0000'))).toEqual({ kind: 'ignored', reason: 'issue key BILL-3 does not belong to project "OPS\\u0000"' });
    expect(parse(keyed('BILL-3', 'x'.repeat(100_000)))).toEqual({
      kind: 'ignored',
      reason: `issue key BILL-3 does not belong to project "${'x'.repeat(64)}"…`,
    });
  });

  it('routes by the key\'s prefix when fields.project.key is absent, blank or no string', () => {
    for (const projectKey of [undefined, '', '  ', 7, null]) {
      expect(parse(keyed('BILL-3', projectKey))).toMatchObject({ kind: 'ticket', ticket: 'BILL-3', route: { projectKey: 'BILL' } });
    }
  });
});

describe('parseJiraPayload: payload text in reasons', () => {
  it('quotes an event name that is no identifier, cut to 64 characters', () => {
    const payload = loadFixture('jira', 'issue-updated');
    expect(parseJiraPayload('issue_deleted', payload, headers)).toEqual({ kind: 'ignored', reason: "Jira event 'issue_deleted' is not used" });
    expect(parseJiraPayload('a\u0000b', payload, headers)).toEqual({ kind: 'ignored', reason: 'Jira event \'"a\\u0000b"\' is not used' });
    expect(parseJiraPayload('e'.repeat(10_000), {}, headers)).toEqual({ kind: 'ignored', reason: `"${'e'.repeat(64)}"… without issue.key` });
  });
});
