import { GitLabMergeRequestReviewers, type GitLabReviewerState } from './gitlab-merge-request-reviewers.js';
import { diffRefsOf, GitLabMergeRequestReviews, type GitLabDiscussionState } from './gitlab-merge-request-reviews.js';
import { changedFiles, shaOf, type PullRequestCode, type PullRequestCodeStore, type PullRequestSetup } from './pull-request-code.js';
import { json, notFound, type RecordedRequest, type StandInResponse } from './stand-in-server.js';

/**
 * The merge requests of the GitLab stand-in's project (`/projects/:id/merge_requests…`), with
 * GitLab's answers:
 * - `GET merge_requests?state=opened|closed|locked|merged|all&source_branch=&target_branch=`
 *   (default `all`, newest first), paginated like the issue list;
 * - `POST merge_requests {source_branch, target_branch, title, description}` → 201; a missing
 *   parameter is Grape's 400 `{"error":"title is missing"}`; the same branch as source and
 *   target is 422 `{"message":["You can't use same project/branch for source and target"]}`;
 *   an open merge request for the same source and target branch is 409 `{"message":["Another
 *   open merge request already exists for this source branch: !1"]}`; a branch that does not
 *   exist is 400 `{"message":{"source_branch":["does not exist"]}}` (or `target_branch`). GitLab
 *   checks in that order (422 keys, then the 409, then the model's 400 validation errors);
 * - `GET`/`PUT merge_requests/:iid` (`title`, `description`, `target_branch`,
 *   `state_event: close|reopen`); merge requests have their own iid sequence, apart from issues;
 * - `sha`, `diff_refs`, `source_project_id` (a fork's differs), `author`, `changes_count` from
 *   the code behind the merge request; diffs, discussions and notes: gitlab-merge-request-reviews.ts;
 *   reviewers: gitlab-merge-request-reviewers.ts.
 */

export interface GitLabMergeRequestState {
  iid: number;
  title: string;
  description: string | null;
  sourceBranch: string;
  targetBranch: string;
  state: 'opened' | 'closed' | 'merged' | 'locked';
  /** The commits and diff behind it (null: none). */
  code: PullRequestCode | null;
  author: string;
  /** The fork's project id, or null when the source branch is in this project. */
  sourceProjectId: number | null;
  discussions: GitLabDiscussionState[];
  reviewers: GitLabReviewerState[];
}

/** What the merge requests need from the project that holds them. */
export interface GitLabProjectHost {
  readonly projectId: number;
  readonly webUrl: string;
  readonly username: string;
  readonly code: PullRequestCodeStore;
  branchExists(name: string): boolean;
  paged(req: RecordedRequest, items: unknown[]): StandInResponse;
}

export class GitLabMergeRequests {
  readonly all = new Map<number, GitLabMergeRequestState>();
  readonly reviews: GitLabMergeRequestReviews;
  readonly reviewers: GitLabMergeRequestReviewers;

  constructor(private readonly host: GitLabProjectHost) {
    this.reviews = new GitLabMergeRequestReviews(host);
    this.reviewers = new GitLabMergeRequestReviewers(this.reviews);
  }

  /** A merge request set up by the test (a fork's too), its head kept at `refs/merge-requests/N/head`. */
  open(setup: PullRequestSetup): GitLabMergeRequestState {
    const iid = Math.max(0, ...this.all.keys()) + 1;
    const target = setup.base ?? 'main';
    const mr: GitLabMergeRequestState = {
      iid,
      title: setup.title ?? `Merge request ${iid}`,
      description: null,
      sourceBranch: setup.head,
      targetBranch: target,
      state: 'opened',
      code: this.host.code.codeFor(setup, target, `refs/merge-requests/${iid}/head`),
      author: setup.author ?? 'gitlab-user',
      sourceProjectId: setup.fork ? this.host.projectId + 1000 : null,
      discussions: [],
      reviewers: [],
    };
    this.all.set(iid, mr);
    return mr;
  }

  get(iid: number): GitLabMergeRequestState {
    const mr = this.all.get(iid);
    if (!mr) throw new Error(`no merge request !${iid}`);
    return mr;
  }

  /** `rest` is the path after `/projects/:id/merge_requests`. */
  route(req: RecordedRequest, rest: string[]): StandInResponse {
    if (rest.length === 0 && req.method === 'GET') return this.list(req);
    if (rest.length === 0 && req.method === 'POST') return this.create(req);
    const mr = this.all.get(Number(rest[0]));
    if (!mr) return notFound({ message: '404 Not found' });
    if (rest[1] === 'reviewers' && rest.length === 2) return this.reviewers.route(req, mr);
    if (rest.length > 1) return this.reviews.route(req, mr, rest.slice(1));
    if (req.method === 'GET') return json(200, this.render(mr));
    if (req.method === 'PUT') return this.update(mr, req);
    return notFound({ error: '404 Not Found' });
  }

  private list(req: RecordedRequest): StandInResponse {
    const state = req.query.get('state') ?? 'all';
    const source = req.query.get('source_branch');
    const target = req.query.get('target_branch');
    const matching = [...this.all.values()]
      .filter((mr) => state === 'all' || mr.state === state)
      .filter((mr) => (source === null || mr.sourceBranch === source) && (target === null || mr.targetBranch === target))
      .sort((a, b) => b.iid - a.iid)
      .map((mr) => this.render(mr));
    return this.host.paged(req, matching);
  }

  private create(req: RecordedRequest): StandInResponse {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const missing = ['source_branch', 'target_branch', 'title'].filter((p) => typeof body[p] !== 'string' || body[p] === '');
    if (missing.length > 0) return json(400, { error: missing.map((p) => `${p} is missing`).join(', ') });
    const source = body['source_branch'] as string;
    const target = body['target_branch'] as string;
    if (source === target) return json(422, { message: ["You can't use same project/branch for source and target"] });
    const duplicate = this.openFor(source, target);
    if (duplicate) return json(409, { message: [`Another open merge request already exists for this source branch: !${duplicate.iid}`] });
    const invalid: Record<string, string[]> = {};
    if (!this.host.branchExists(source)) invalid['source_branch'] = ['does not exist'];
    if (!this.host.branchExists(target)) invalid['target_branch'] = ['does not exist'];
    if (Object.keys(invalid).length > 0) return json(400, { message: invalid });
    const mr: GitLabMergeRequestState = {
      iid: Math.max(0, ...this.all.keys()) + 1,
      title: body['title'] as string,
      description: typeof body['description'] === 'string' ? body['description'] : null,
      sourceBranch: source,
      targetBranch: target,
      state: 'opened',
      code: this.host.code.repository ? { repository: this.host.code.repository, baseRef: `refs/heads/${target}`, headRef: `refs/heads/${source}` } : null,
      author: this.host.username,
      sourceProjectId: null,
      discussions: [],
      reviewers: [],
    };
    this.all.set(mr.iid, mr);
    return json(201, this.render(mr));
  }

  private update(mr: GitLabMergeRequestState, req: RecordedRequest): StandInResponse {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const target = typeof body['target_branch'] === 'string' ? body['target_branch'] : mr.targetBranch;
    if (!this.host.branchExists(target)) return json(400, { message: { target_branch: ['does not exist'] } });
    if (body['state_event'] === 'reopen' && mr.state === 'closed') {
      const duplicate = this.openFor(mr.sourceBranch, target);
      if (duplicate) return json(409, { message: [`Another open merge request already exists for this source branch: !${duplicate.iid}`] });
      mr.state = 'opened';
    }
    if (body['state_event'] === 'close' && mr.state === 'opened') mr.state = 'closed';
    if (typeof body['title'] === 'string') mr.title = body['title'];
    if (typeof body['description'] === 'string') mr.description = body['description'];
    mr.targetBranch = target;
    return json(200, this.render(mr));
  }

  private openFor(source: string, target: string): GitLabMergeRequestState | undefined {
    return [...this.all.values()].find((mr) => mr.state === 'opened' && mr.sourceBranch === source && mr.targetBranch === target);
  }

  private render(mr: GitLabMergeRequestState): Record<string, unknown> {
    return {
      id: 7000 + mr.iid,
      iid: mr.iid,
      project_id: this.host.projectId,
      title: mr.title,
      description: mr.description,
      state: mr.state,
      source_branch: mr.sourceBranch,
      target_branch: mr.targetBranch,
      source_project_id: mr.sourceProjectId ?? this.host.projectId,
      target_project_id: this.host.projectId,
      author: { username: mr.author },
      sha: shaOf(mr.code, 'head'),
      diff_refs: diffRefsOf(mr),
      changes_count: String(changedFiles(mr.code).length),
      draft: false,
      merged_at: mr.state === 'merged' ? '2026-01-02T00:00:00.000Z' : null,
      references: { short: `!${mr.iid}` },
      web_url: `${this.host.webUrl}/-/merge_requests/${mr.iid}`,
    };
  }
}
