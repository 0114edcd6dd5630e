import { changedFiles, shownLines, type StandInChangedFile } from './pull-request-code.js';
import type { GitHubPullState } from './github-pull-requests.js';
import { json, notFound, type RecordedRequest, type StandInResponse } from './stand-in-server.js';

/**
 * The review side of the GitHub stand-in's pull requests, with GitHub's answers:
 * - `GET pulls/{n}/files`: the diff of the merge base and the head (pull-request-code.ts), paged
 *   like every list (`per_page` ≤ 100, `Link`), at most `maxListedFiles` (GitHub: 3000) listed;
 *   no `patch` for a binary file; statuses `added`, `removed`, `modified`, `renamed`;
 * - `POST pulls/{n}/reviews {commit_id, body, event, comments}`: the whole review is refused with
 *   422 "Line could not be resolved" when a comment's `line` (or `start_line`) is not a new-side
 *   line the file's hunks show, or its file is not in the diff; `event` COMMENT or
 *   REQUEST_CHANGES needs a body; no `event` leaves it PENDING. Every review keeps its event, so
 *   a test can assert that nothing was approved;
 * - `GET`/`PUT pulls/{n}/reviews[/{id}]` (a submitted review cannot be deleted, only its body
 *   edited; `submitted_at` unless pending), `GET pulls/{n}/comments` (`created_at`, a reply's
 *   `in_reply_to_id`: the thread's first comment), `DELETE pulls/comments/{id}` (204; 404 when gone);
 * - review threads: each comment that replies to none starts one; a thread is resolved or not
 *   (`resolveThread`), which REST never shows and GraphQL does (github-graphql.ts).
 * Reviews and comments record their author: the token's account, or whoever a test says; their
 * times come from a clock a minute a tick from 2026-01-01, or from the test.
 */

export interface GitHubReviewState {
  id: number;
  pull: number;
  login: string;
  body: string;
  /** What the client sent (`COMMENT`, `APPROVE`, `REQUEST_CHANGES`, or null). */
  event: string | null;
  state: 'COMMENTED' | 'APPROVED' | 'CHANGES_REQUESTED' | 'PENDING';
  commitId: string;
  /** Null while pending. */
  submittedAt: string | null;
}

export interface GitHubReviewCommentState {
  id: number;
  pull: number;
  reviewId: number | null;
  login: string;
  path: string;
  line: number;
  startLine: number | null;
  side: string;
  body: string;
  /** The first comment of the thread this one answers (GitHub replies always name it), or null. */
  inReplyTo: number | null;
  createdAt: string;
}

export interface GitHubReviewHost {
  readonly login: string;
  readonly url: string;
  readonly owner: string;
  readonly repo: string;
  paged(req: RecordedRequest, items: unknown[]): StandInResponse;
  headShaOf(pull: GitHubPullState): string;
}

const STATES: Record<string, GitHubReviewState['state']> = { COMMENT: 'COMMENTED', APPROVE: 'APPROVED', REQUEST_CHANGES: 'CHANGES_REQUESTED' };

export class GitHubPullRequestReviews {
  readonly reviews: GitHubReviewState[] = [];
  readonly comments: GitHubReviewCommentState[] = [];
  /** First comments of the threads marked resolved. */
  readonly resolvedThreads = new Set<number>();
  /** GitHub lists at most 3000 files of a pull request. */
  maxListedFiles = 3000;
  private nextId = 8000;
  private ticks = 0;

  constructor(private readonly host: GitHubReviewHost) {}

  /**
   * A review comment by someone else (by default not the service's account): a new thread on
   * `path` and `line`, or with `inReplyTo` a reply in that comment's thread (on its line).
   */
  addComment(pull: number, comment: { path?: string; line?: number; body: string; login?: string; inReplyTo?: number; createdAt?: string }): number {
    const parent = comment.inReplyTo === undefined ? null : this.comments.find((c) => c.id === comment.inReplyTo);
    if (comment.inReplyTo !== undefined && !parent) throw new Error(`no review comment ${comment.inReplyTo}`);
    const path = parent?.path ?? comment.path;
    const line = parent?.line ?? comment.line;
    if (path === undefined || line === undefined) throw new Error('a new thread needs a path and a line');
    const id = this.nextId++;
    const inReplyTo = parent ? (parent.inReplyTo ?? parent.id) : null;
    this.comments.push({ id, pull, reviewId: null, login: comment.login ?? 'octo-user', path, line, startLine: null, side: 'RIGHT', body: comment.body, inReplyTo, createdAt: comment.createdAt ?? this.tick() });
    return id;
  }

  /** A submitted review by someone else: a request for changes, an approval, a comment. */
  addReview(pull: number, review: { event: 'COMMENT' | 'APPROVE' | 'REQUEST_CHANGES'; body?: string; login?: string; submittedAt?: string }): number {
    const id = this.nextId++;
    this.reviews.push({ id, pull, login: review.login ?? 'octo-user', body: review.body ?? '', event: review.event, state: STATES[review.event]!, commitId: '0'.repeat(40), submittedAt: review.submittedAt ?? this.tick() });
    return id;
  }

  /** Resolves (or unresolves) the thread holding the comment. */
  resolveThread(commentId: number, resolved = true): void {
    const comment = this.comments.find((c) => c.id === commentId);
    if (!comment) throw new Error(`no review comment ${commentId}`);
    const root = comment.inReplyTo ?? comment.id;
    if (resolved) this.resolvedThreads.add(root);
    else this.resolvedThreads.delete(root);
  }

  /** The pull request's threads, oldest first, each its first comment and then the replies. */
  threadsOf(pull: number): { root: number; resolved: boolean; comments: GitHubReviewCommentState[] }[] {
    const own = this.comments.filter((c) => c.pull === pull);
    return own.filter((c) => c.inReplyTo === null).map((root) => ({
      root: root.id,
      resolved: this.resolvedThreads.has(root.id),
      comments: [root, ...own.filter((c) => c.inReplyTo === root.id)],
    }));
  }

  /** `rest` is the path after `pulls/{n}/`. */
  route(req: RecordedRequest, pull: GitHubPullState, rest: string[]): StandInResponse {
    const [resource, id] = rest;
    if (resource === 'files' && rest.length === 1 && req.method === 'GET') return this.files(req, pull);
    if (resource === 'comments' && rest.length === 1 && req.method === 'GET') {
      return this.host.paged(req, this.comments.filter((c) => c.pull === pull.number).map((c) => this.renderComment(c)));
    }
    if (resource !== 'reviews') return notFound();
    if (rest.length === 1 && req.method === 'GET') return this.host.paged(req, this.reviews.filter((r) => r.pull === pull.number).map((r) => this.renderReview(r)));
    if (rest.length === 1 && req.method === 'POST') return this.create(req, pull);
    const review = this.reviews.find((r) => r.pull === pull.number && r.id === Number(id));
    if (!review || rest.length !== 2) return notFound();
    if (req.method === 'GET') return json(200, this.renderReview(review));
    if (req.method === 'PUT') {
      const body = (req.body as { body?: unknown } | undefined)?.body;
      if (typeof body !== 'string' || body === '') return unprocessable(['Body can\'t be blank']);
      review.body = body;
      return json(200, this.renderReview(review));
    }
    return notFound();
  }

  /** `DELETE pulls/comments/{id}` (and `GET`). */
  routeComment(req: RecordedRequest, id: number): StandInResponse {
    const index = this.comments.findIndex((c) => c.id === id);
    if (index < 0) return notFound();
    if (req.method === 'GET') return json(200, this.renderComment(this.comments[index]!));
    if (req.method !== 'DELETE') return notFound();
    this.comments.splice(index, 1);
    return { status: 204 };
  }

  private files(req: RecordedRequest, pull: GitHubPullState): StandInResponse {
    const listed = changedFiles(pull.code).slice(0, this.maxListedFiles).map(renderFile);
    return this.host.paged(req, listed);
  }

  private create(req: RecordedRequest, pull: GitHubPullState): StandInResponse {
    const body = (req.body ?? {}) as { commit_id?: unknown; body?: unknown; event?: unknown; comments?: unknown };
    const event = typeof body.event === 'string' ? body.event : null;
    if (event !== null && !(event in STATES)) return unprocessable([`Event ${event} is not valid`]);
    const text = typeof body.body === 'string' ? body.body : '';
    if ((event === 'COMMENT' || event === 'REQUEST_CHANGES') && text === '') return unprocessable(['Review Body can\'t be blank']);
    const files = new Map(changedFiles(pull.code).map((f) => [f.path, shownLines(f.patch)]));
    const requested = Array.isArray(body.comments) ? (body.comments as Record<string, unknown>[]) : [];
    for (const c of requested) {
      const shown = files.get(String(c['path']));
      const lines = [c['line'], c['start_line'] ?? c['line']];
      const onRight = (c['side'] ?? 'RIGHT') === 'RIGHT' && (c['start_side'] ?? 'RIGHT') === 'RIGHT';
      if (!shown || !onRight || !lines.every((l) => typeof l === 'number' && shown.has(l)) || typeof c['body'] !== 'string') {
        return unprocessable(['Line could not be resolved']);
      }
    }
    const review: GitHubReviewState = {
      id: this.nextId++,
      pull: pull.number,
      login: this.host.login,
      body: text,
      event,
      state: event === null ? 'PENDING' : STATES[event]!,
      commitId: typeof body.commit_id === 'string' ? body.commit_id : this.host.headShaOf(pull),
      submittedAt: event === null ? null : this.tick(),
    };
    this.reviews.push(review);
    for (const c of requested) {
      this.comments.push({
        id: this.nextId++,
        pull: pull.number,
        reviewId: review.id,
        login: this.host.login,
        path: String(c['path']),
        line: c['line'] as number,
        startLine: typeof c['start_line'] === 'number' ? c['start_line'] : null,
        side: 'RIGHT',
        body: c['body'] as string,
        inReplyTo: null,
        createdAt: this.tick(),
      });
    }
    return json(200, this.renderReview(review));
  }

  private renderReview(r: GitHubReviewState): Record<string, unknown> {
    return {
      id: r.id,
      user: { login: r.login, type: 'User' },
      body: r.body,
      state: r.state,
      commit_id: r.commitId,
      html_url: `https://github.com/${this.host.owner}/${this.host.repo}/pull/${r.pull}#pullrequestreview-${r.id}`,
      submitted_at: r.submittedAt ?? undefined,
    };
  }

  private renderComment(c: GitHubReviewCommentState): Record<string, unknown> {
    return {
      id: c.id,
      pull_request_review_id: c.reviewId,
      user: { login: c.login, type: 'User' },
      path: c.path,
      line: c.line,
      start_line: c.startLine,
      side: c.side,
      body: c.body,
      created_at: c.createdAt,
      updated_at: c.createdAt,
      ...(c.inReplyTo !== null ? { in_reply_to_id: c.inReplyTo } : {}),
      url: `${this.host.url}/repos/${this.host.owner}/${this.host.repo}/pulls/comments/${c.id}`,
    };
  }

  /** Times a minute apart from 2026-01-01, in the order things happen. */
  private tick(): string {
    return new Date(Date.UTC(2026, 0, 1) + this.ticks++ * 60_000).toISOString();
  }
}

const FILE_STATUS: Record<StandInChangedFile['status'], string> = { added: 'added', deleted: 'removed', modified: 'modified', renamed: 'renamed' };

function renderFile(f: StandInChangedFile): Record<string, unknown> {
  return {
    sha: null,
    filename: f.path,
    status: FILE_STATUS[f.status],
    additions: f.additions,
    deletions: f.deletions,
    changes: f.additions + f.deletions,
    ...(f.patch !== null ? { patch: f.patch } : {}),
    ...(f.previousPath !== null ? { previous_filename: f.previousPath } : {}),
  };
}

function unprocessable(errors: string[]): StandInResponse {
  return json(422, { message: 'Unprocessable Entity', errors, documentation_url: 'https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request', status: '422' });
}
