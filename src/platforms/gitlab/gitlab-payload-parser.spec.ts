import { describe, expect, it } from 'vitest';
import { HOSTILE_BODIES, loadFixture } from '../../../test/fixtures/payload-fixtures.js';
import { Platform } from '../platform.js';
import { gitlabDeliveryId, gitlabEventName } from './gitlab-delivery.js';
import { parseGitLabPayload } from './gitlab-payload-parser.js';

const headers = { 'x-gitlab-event': 'Issue Hook', 'idempotency-key': 'f5e3d2c1-0000-4000-8000-000000000001' };

type Json = Record<string, unknown>;
const label = (title: string) => ({ id: 1, title, color: '#ffffff', type: 'ProjectLabel' });

describe('gitlab event and delivery headers', () => {
  it('reads X-PlatformB-Event or X-Gitlab-Event, the neutral name first', () => {
    expect(gitlabEventName({ 'x-gitlab-event': 'Note Hook' })).toBe('Note Hook');
    expect(gitlabEventName({ 'x-platformb-event': 'Issue Hook', 'x-gitlab-event': 'Push Hook' })).toBe('Issue Hook');
    expect(gitlabEventName({})).toBeNull();
  });

  it('reads Idempotency-Key, else X-Gitlab-Event-UUID', () => {
    expect(gitlabDeliveryId(headers)).toBe('f5e3d2c1-0000-4000-8000-000000000001');
    expect(gitlabDeliveryId({ 'x-gitlab-event-uuid': 'uuid-2' })).toBe('uuid-2');
    expect(gitlabDeliveryId({})).toBeNull();
  });
});

describe('parseGitLabPayload: Issue Hook', () => {
  it('maps the documented example to the labels added (current minus previous) on the iid', () => {
    expect(parseGitLabPayload('Issue Hook', loadFixture('gitlab', 'issue-hook'), headers)).toEqual({
      kind: 'ticket',
      platform: Platform.GitLab,
      eventName: 'Issue Hook',
      deliveryId: 'f5e3d2c1-0000-4000-8000-000000000001',
      ticket: '23',
      route: { repositoryUrl: 'http://example.com/gitlabhq/gitlab-test' },
      change: { type: 'labels-added', labels: ['Platform'] },
      changes: [{ type: 'labels-added', labels: ['Platform'] }],
    });
  });

  it('passes service: labels through and lists several added labels in order', () => {
    const payload = loadFixture('gitlab', 'issue-hook');
    const changes = payload['changes'] as { labels: { previous: unknown[]; current: unknown[] } };
    changes.labels.current = [label('API'), label('service:enqueued'), label('agent'), label('agent')];
    expect(parseGitLabPayload('Issue Hook', payload, headers)).toMatchObject({
      change: { type: 'labels-added', labels: ['service:enqueued', 'agent'] },
    });
  });

  it('ignores an update that adds no label (removal only, or no label change)', () => {
    const removal = loadFixture('gitlab', 'issue-hook');
    const changes = removal['changes'] as { labels: { previous: unknown[]; current: unknown[] } };
    changes.labels.current = [];
    expect(parseGitLabPayload('Issue Hook', removal, headers)).toEqual({ kind: 'ignored', reason: 'no label was added' });
    const untouched = loadFixture('gitlab', 'issue-hook');
    delete (untouched['changes'] as Json)['labels'];
    expect(parseGitLabPayload('Issue Hook', untouched, headers).kind).toBe('ignored');
  });

  it('accepts the confidential variant and ignores a non-issue work item', () => {
    expect(parseGitLabPayload('Confidential Issue Hook', loadFixture('gitlab', 'issue-hook'), headers).kind).toBe('ticket');
    const epic = loadFixture('gitlab', 'issue-hook');
    epic['object_kind'] = 'work_item';
    expect(parseGitLabPayload('Issue Hook', epic, headers).kind).toBe('ignored');
  });
});

describe('parseGitLabPayload: Note Hook', () => {
  it('maps a note on an issue (documented example) to a ticket comment', () => {
    expect(parseGitLabPayload('Note Hook', loadFixture('gitlab', 'note-hook-issue'), headers)).toMatchObject({
      kind: 'ticket',
      ticket: '17',
      route: { repositoryUrl: 'http://example.com/gitlab-org/gitlab-test' },
      change: { type: 'comment', body: 'Hello world', author: 'root' },
    });
  });

  it('maps a note on a merge request (documented example) to a pr-comment', () => {
    expect(parseGitLabPayload('Note Hook', loadFixture('gitlab', 'note-hook-merge-request'), headers)).toEqual({
      kind: 'pr-comment',
      platform: Platform.GitLab,
      eventName: 'Note Hook',
      deliveryId: 'f5e3d2c1-0000-4000-8000-000000000001',
      route: { repositoryUrl: 'http://example.com/gitlab-org/gitlab-test' },
      pullRequest: { number: 1, headBranch: 'master', sameRepository: true, author: { login: null, id: '8', displayName: null } },
      comment: {
        id: '1244',
        body: 'This MR needs work.',
        author: { login: 'root', id: '1', displayName: 'Administrator' },
        authorAssociation: null,
        system: false,
      },
    });
  });

  it('flags system notes and merge requests from a fork', () => {
    const payload = loadFixture('gitlab', 'note-hook-merge-request');
    (payload['object_attributes'] as Json)['system'] = true;
    (payload['merge_request'] as Json)['source_project_id'] = 99;
    expect(parseGitLabPayload('Note Hook', payload, headers)).toMatchObject({
      pullRequest: { sameRepository: false },
      comment: { system: true },
    });
  });

  it('ignores edited notes and notes on commits or snippets', () => {
    const edited = loadFixture('gitlab', 'note-hook-issue');
    (edited['object_attributes'] as Json)['action'] = 'update';
    expect(parseGitLabPayload('Note Hook', edited, headers).kind).toBe('ignored');
    for (const noteableType of ['Commit', 'Snippet']) {
      const other = loadFixture('gitlab', 'note-hook-issue');
      (other['object_attributes'] as Json)['noteable_type'] = noteableType;
      expect(parseGitLabPayload('Note Hook', other, headers).kind).toBe('ignored');
    }
  });

  it('accepts notes from GitLab versions that send no action', () => {
    const payload = loadFixture('gitlab', 'note-hook-issue');
    delete (payload['object_attributes'] as Json)['action'];
    expect(parseGitLabPayload('Note Hook', payload, headers).kind).toBe('ticket');
  });
});

describe('parseGitLabPayload: Merge Request Hook', () => {
  it('maps the documented example to pr-labeled carrying its labels', () => {
    expect(parseGitLabPayload('Merge Request Hook', loadFixture('gitlab', 'merge-request-hook'), headers)).toMatchObject({
      kind: 'pr-labeled',
      route: { repositoryUrl: 'http://example.com/gitlabhq/gitlab-test' },
      pullRequest: { number: 1, headBranch: 'ms-viewport', sameRepository: true, author: { id: '51' } },
      addedLabels: ['Platform'],
      currentLabels: ['API', 'Platform'],
      action: 'open',
    });
  });

  it('passes on a merge request update that carries no labels (a request for changes arrives as one)', () => {
    const payload = loadFixture('gitlab', 'merge-request-hook');
    payload['labels'] = [];
    (payload['object_attributes'] as Json)['labels'] = [];
    payload['changes'] = {};
    expect(parseGitLabPayload('Merge Request Hook', payload, headers)).toMatchObject({ kind: 'pr-labeled', addedLabels: [], currentLabels: [] });
  });
});

describe('parseGitLabPayload: everything else', () => {
  it('ignores hooks it does not use and a missing event name', () => {
    expect(parseGitLabPayload('Push Hook', { object_kind: 'push' }, headers).kind).toBe('ignored');
    expect(parseGitLabPayload(null, loadFixture('gitlab', 'issue-hook'), headers).kind).toBe('ignored');
  });

  it('never throws on hostile bodies', () => {
    for (const eventName of ['Issue Hook', 'Note Hook', 'Merge Request Hook', 'Confidential Note Hook']) {
      for (const body of HOSTILE_BODIES) {
        expect(parseGitLabPayload(eventName, body, headers).kind).toBe('ignored');
      }
    }
  });

  it('ignores a note whose target lacks its iid or whose text is not a string', () => {
    const payload = loadFixture('gitlab', 'note-hook-issue');
    (payload['issue'] as Json)['iid'] = null;
    expect(parseGitLabPayload('Note Hook', payload, headers).kind).toBe('ignored');
    const numeric = loadFixture('gitlab', 'note-hook-issue');
    (numeric['object_attributes'] as Json)['note'] = 5;
    expect(parseGitLabPayload('Note Hook', numeric, headers).kind).toBe('ignored');
  });
});
