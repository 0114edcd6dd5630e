import type { GitHubReviewCommentState } from './github-pull-request-reviews.js';
import { json, type RecordedRequest, type StandInResponse } from './stand-in-server.js';

/**
 * `POST /graphql` of the GitHub stand-in, answering the one query shape the service sends: a
 * pull request's review threads with their resolution and comments,
 * `repository(owner, name) { pullRequest(number) { reviewThreads(first, after) { pageInfo
 * { hasNextPage endCursor } nodes { id isResolved comments(first) { nodes { databaseId body
 * author { login } createdAt path line } } } } } }`. Arguments may be literals or `$variables`.
 * As on GitHub: 200 with `errors` (and null data) for what cannot be resolved, `first` is
 * required and at most 100, cursors are opaque. Anything else is answered with an error.
 */

export interface GraphQlThread {
  root: number;
  resolved: boolean;
  comments: GitHubReviewCommentState[];
}

export interface GraphQlHost {
  readonly owner: string;
  readonly repo: string;
  hasPull(number: number): boolean;
  threadsOf(number: number): GraphQlThread[];
}

const MAX_FIRST = 100;

export function answerGraphQl(req: RecordedRequest, host: GraphQlHost): StandInResponse {
  const { query, variables = {} } = (req.body ?? {}) as { query?: unknown; variables?: Record<string, unknown> };
  if (typeof query !== 'string' || !/reviewThreads/.test(query)) return errors([{ message: 'The GitHub stand-in answers only the review-threads query.' }]);
  const arg = (text: string | undefined): unknown => (text === undefined ? undefined : text.startsWith('$') ? variables[text.slice(1)] : JSON.parse(text));
  const owner = arg(/repository\s*\(\s*owner:\s*(\$\w+|"[^"]*")/.exec(query)?.[1]);
  const name = arg(/name:\s*(\$\w+|"[^"]*")/.exec(query)?.[1]);
  const number = arg(/pullRequest\s*\(\s*number:\s*(\$\w+|\d+)/.exec(query)?.[1]);
  const threadArgs = /reviewThreads\s*\(([^)]*)\)/.exec(query)?.[1] ?? '';
  const commentArgs = /comments\s*\(([^)]*)\)/.exec(query)?.[1] ?? '';
  const first = arg(/first:\s*(\$\w+|\d+)/.exec(threadArgs)?.[1]);
  const after = arg(/after:\s*(\$\w+|"[^"]*")/.exec(threadArgs)?.[1]);
  const commentsFirst = arg(/first:\s*(\$\w+|\d+)/.exec(commentArgs)?.[1]);
  for (const [connection, count] of [['reviewThreads', first], ['comments', commentsFirst]] as const) {
    if (typeof count !== 'number') return errors([{ message: `You must provide a \`first\` or \`last\` value to properly paginate the \`${connection}\` connection.` }]);
    if (count > MAX_FIRST) return errors([{ message: `Requesting ${count} records on the \`${connection}\` connection exceeds the \`first\` limit of 100 records.` }]);
  }
  if (owner !== host.owner || name !== host.repo) {
    return errors([{ type: 'NOT_FOUND', path: ['repository'], message: `Could not resolve to a Repository with the name '${String(owner)}/${String(name)}'.` }], { repository: null });
  }
  if (typeof number !== 'number' || !host.hasPull(number)) {
    return errors([{ type: 'NOT_FOUND', path: ['repository', 'pullRequest'], message: `Could not resolve to a PullRequest with the number of ${String(number)}.` }], { repository: { pullRequest: null } });
  }
  const threads = host.threadsOf(number);
  const start = typeof after === 'string' ? indexOf(after) + 1 : 0;
  const page = threads.slice(start, start + (first as number));
  const nodes = page.map((t) => ({
    id: `PRRT_${Buffer.from(`thread:${t.root}`).toString('base64url')}`,
    isResolved: t.resolved,
    comments: { nodes: t.comments.slice(0, commentsFirst as number).map(renderComment) },
  }));
  const last = start + page.length - 1;
  return json(200, {
    data: {
      repository: {
        pullRequest: {
          reviewThreads: { pageInfo: { hasNextPage: start + page.length < threads.length, endCursor: page.length > 0 ? cursorOf(last) : null }, nodes },
        },
      },
    },
  });
}

function renderComment(c: GitHubReviewCommentState): Record<string, unknown> {
  return { databaseId: c.id, body: c.body, author: { login: c.login }, createdAt: c.createdAt, path: c.path, line: c.line };
}

function cursorOf(index: number): string {
  return Buffer.from(`cursor:v2:${index}`).toString('base64');
}

function indexOf(cursor: string): number {
  const index = Number(/^cursor:v2:(\d+)$/.exec(Buffer.from(cursor, 'base64').toString('utf8'))?.[1]);
  return Number.isInteger(index) ? index : -1;
}

function errors(list: Record<string, unknown>[], data: unknown = null): StandInResponse {
  return json(200, { data, errors: list.map((e) => ({ locations: [{ line: 1, column: 1 }], ...e })) });
}
