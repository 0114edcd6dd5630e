import type { DiscussionItem } from '../../conversations/run-conversation.js';
import { bearerAuth, TrackerHttp, type TrackerHttpOptions } from '../http/tracker-http.js';
import { Platform } from '../platform.js';
import { quoteHost, refusal } from '../pull-request-errors.js';

/**
 * A pull request's review threads with their resolution, which only GitHub's GraphQL API tells
 * (REST review comments carry no `isResolved`). Threads are paged by cursor to the end; a thread's
 * comments are its first 100 (a thread longer than that is cut there). GraphQL answers 200 with
 * `errors` when it cannot resolve something (an unknown pull request): that is an error here.
 */

const QUERY = `query($owner: String!, $name: String!, $number: Int!, $cursor: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $cursor) {
        pageInfo { hasNextPage endCursor }
        nodes { id isResolved comments(first: 100) { nodes { databaseId body author { login } createdAt path line } } }
      }
    }
  }
}`;

interface ThreadsPage {
  data?: {
    repository?: {
      pullRequest?: {
        reviewThreads?: {
          pageInfo: { hasNextPage: boolean; endCursor: string | null };
          nodes: ReviewThread[];
        };
      } | null;
    } | null;
  } | null;
  errors?: { message?: string; type?: string }[];
}
interface ReviewThread {
  id: string;
  isResolved: boolean;
  comments: { nodes: ({ databaseId: number | null; body: string; author: { login: string } | null; createdAt: string; path: string | null; line: number | null } | null)[] };
}

const MAX_PAGES = 100;

/** GraphQL sits beside REST: `https://api.github.com/graphql`, GHES `https://host/api/graphql`. */
export function gitHubGraphQl(apiBase: string, token: string, http?: TrackerHttpOptions): TrackerHttp {
  const base = apiBase.replace(/\/+$/, '').replace(/\/api\/v3$/, '/api');
  return new TrackerHttp(Platform.GitHub, base, bearerAuth(token), http);
}

/** Every review comment of the pull request, in its thread, oldest thread first. */
export async function reviewThreadComments(graphQl: TrackerHttp, target: { owner: string; name: string; number: number; repository: string }): Promise<DiscussionItem[]> {
  const items: DiscussionItem[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const res: { body: ThreadsPage } = await graphQl.request<ThreadsPage>({
      method: 'POST', path: 'graphql', idempotent: true,
      body: { query: QUERY, variables: { owner: target.owner, name: target.name, number: target.number, cursor } },
    });
    const threads = res.body?.data?.repository?.pullRequest?.reviewThreads;
    if (!threads) {
      const said = res.body?.errors?.map((e) => e.message ?? e.type ?? '').filter(Boolean).join('; ') || 'no review threads in the answer';
      throw refusal(Platform.GitHub, target.repository, `GitHub GraphQL could not read the review threads of pull request #${target.number}: ${quoteHost(said)}`, null);
    }
    for (const thread of threads.nodes) items.push(...thread.comments.nodes.filter((c) => c !== null).map((c) => ({
      id: `review-comment/${c.databaseId ?? ''}`,
      author: c.author?.login ?? null,
      body: c.body,
      createdAt: c.createdAt,
      path: c.path ?? null,
      line: c.line ?? null,
      threadId: thread.id,
      resolved: thread.isResolved,
      system: false,
    })));
    if (!threads.pageInfo.hasNextPage || !threads.pageInfo.endCursor) break;
    cursor = threads.pageInfo.endCursor;
  }
  return items;
}
