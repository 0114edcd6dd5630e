import { loadFixture } from '../../fixtures/payload-fixtures.js';
import { type Wire, gitlabWire } from '../../webhooks/support/deliveries.js';

type Json = Record<string, unknown>;
const rec = (value: unknown): Json => value as Json;

let nextId = 7_000_000;
export const freshNoteId = (): number => ++nextId;

export interface GitLabUserRef {
  username: string;
  id: number;
}

/** GitLab's documented `Note Hook` on a merge request, moved onto merge request `iid` of `webUrl` (source branch `head` in the project itself). */
export function mergeRequestNote(webUrl: string, projectId: number, iid: number, head: string, note: string, by: GitLabUserRef, options: { id?: number; system?: boolean } = {}): Json {
  const payload = loadFixture('gitlab', 'note-hook-merge-request');
  payload['user'] = { ...rec(payload['user']), username: by.username, id: by.id, name: by.username };
  const attributes = rec(payload['object_attributes']);
  attributes['id'] = options.id ?? freshNoteId();
  attributes['note'] = note;
  attributes['system'] = options.system ?? false;
  attributes['author_id'] = by.id;
  attributes['action'] = 'create';
  const mr = rec(payload['merge_request']);
  mr['iid'] = iid;
  mr['source_branch'] = head;
  mr['source_project_id'] = projectId;
  mr['target_project_id'] = projectId;
  rec(payload['project'])['web_url'] = webUrl;
  return payload;
}

/** GitLab's documented `Merge Request Hook`: an `update` of merge request `iid` (head `head`), no labels. */
export function mergeRequestUpdate(webUrl: string, projectId: number, iid: number, head: string): Json {
  const payload = loadFixture('gitlab', 'merge-request-hook');
  const attributes = rec(payload['object_attributes']);
  attributes['iid'] = iid;
  attributes['action'] = 'update';
  attributes['source_branch'] = head;
  attributes['source_project_id'] = projectId;
  attributes['target_project_id'] = projectId;
  attributes['labels'] = [];
  payload['labels'] = [];
  delete payload['changes'];
  rec(payload['project'])['web_url'] = webUrl;
  return payload;
}

/** Unsigned (the test server has no platform-b token), with a fresh idempotency key. */
export function gitlabDelivery(event: string, body: Json): Wire {
  return gitlabWire(event, body, { token: null, idempotencyKey: `k-${freshNoteId()}` });
}
