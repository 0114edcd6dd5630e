import { githubExample } from '../../fixtures/payload-fixtures.js';
import type { Wire } from '../../webhooks/support/deliveries.js';
import { githubWire } from '../../webhooks/support/deliveries.js';

type Json = Record<string, unknown>;
const rec = (value: unknown): Json => value as Json;

let nextId = 9_000_000;
/** A fresh comment or review id, as GitHub numbers them. */
export const freshId = (): number => ++nextId;

export interface Commenter {
  login: string;
  /** GitHub `author_association`. */
  association: string;
}

/**
 * octokit's documented `issue_comment` `created` example, moved onto pull request `number` of
 * `repositoryUrl` (GitHub marks a pull request's issue view with `issue.pull_request`).
 */
export function pullRequestComment(repositoryUrl: string, number: number, body: string, by: Commenter, id = freshId()): Json {
  const payload = githubExample('issue_comment', 'created');
  const issue = rec(payload['issue']);
  issue['number'] = number;
  issue['pull_request'] = { url: `${repositoryUrl}/pulls/${number}`, html_url: `${repositoryUrl}/pull/${number}` };
  const comment = rec(payload['comment']);
  comment['id'] = id;
  comment['body'] = body;
  comment['author_association'] = by.association;
  comment['user'] = { ...rec(comment['user']), login: by.login, id: 4_000 + by.login.length };
  rec(payload['repository'])['html_url'] = repositoryUrl;
  return payload;
}

/** octokit's `pull_request_review` `submitted` example: `state` by `by` on pull request `number` (head `head`, same repository). */
export function pullRequestReview(repositoryUrl: string, number: number, head: string, state: string, body: string | null, by: Commenter, author: string, id = freshId()): Json {
  const payload = githubExample('pull_request_review', 'submitted');
  const review = rec(payload['review']);
  review['id'] = id;
  review['state'] = state;
  review['body'] = body;
  review['author_association'] = by.association;
  review['user'] = { ...rec(review['user']), login: by.login };
  const pull = rec(payload['pull_request']);
  pull['number'] = number;
  pull['user'] = { ...rec(pull['user']), login: author };
  const repository = rec(payload['repository']);
  repository['html_url'] = repositoryUrl;
  pull['head'] = { ...rec(pull['head']), ref: head, repo: { ...repository } };
  pull['base'] = { ...rec(pull['base']), repo: { ...repository } };
  return payload;
}

/** An unsigned delivery (the test server has no platform-a secret) with a fresh delivery id. */
export function wire(event: string, body: Json, delivery = `d-${freshId()}`): Wire {
  return githubWire(event, body, { delivery, signature: null });
}
