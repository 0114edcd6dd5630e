import type { RepoConfig } from '../../config/service-config.js';
import type { TrackerHttp, TrackerHttpOptions } from '../http/tracker-http.js';
import { Platform } from '../platform.js';
import { clientForRepository, inRepository, quoteHost, refusal } from '../pull-request-errors.js';
import type { ChangedFileStatus, InlineComment, PostedReview, PullRequestDiff, PullRequestFile, PullRequestReviews, PullRequestState, ReviewDraft } from '../pull-request-review.js';
import { rememberedLookup } from '../remembered-lookup.js';
import { isOwnMarked, isSupersededNote, summaryWith, supersededNote } from '../review-text.js';
import { hasHunks, newSideLines } from '../unified-diff.js';
import { API_HEADERS } from './github-api.js';
import { type GitHubPull, type GitHubPullRequestsOptions, gitHubRepository, pullNumber, toRef } from './github-pull-requests.client.js';
import { gitHubLogin, gitHubPages } from './github-reads.js';

/**
 * Reviews on GitHub REST v3. The diff is `GET /pulls/{n}/files` (100 a page, at most 3000 files:
 * `truncated` when the pull request's `changed_files` says more; no `patch` for binary or huge
 * files). A review is one `POST /pulls/{n}/reviews` with `event: COMMENT` at the head commit;
 * GitHub refuses the whole review (422) when a comment's line is not in the diff, so the review is
 * posted again with only the comments the diff shows and the rest in its summary.
 *
 * Replacing the previous review: submitted reviews cannot be deleted, so its inline comments are
 * deleted (`DELETE /pulls/comments/{id}`) and its body is edited into a one-line "superseded"
 * note (`PUT /pulls/{n}/reviews/{id}`). Only comments carrying the marker and written by the
 * token's account (`GET /user`: a personal or machine-user token; an App installation token
 * cannot read it) are touched.
 */

interface GitHubPullWithRefs extends GitHubPull {
  head: { ref: string; sha: string; repo: { full_name: string } | null };
  base: { ref: string; sha: string; repo: { full_name: string } };
  user?: { login: string } | null;
  changed_files?: number;
}
interface GitHubPullFile {
  filename: string;
  previous_filename?: string;
  status: 'added' | 'removed' | 'modified' | 'renamed' | 'copied' | 'changed' | 'unchanged';
  patch?: string;
}
interface GitHubAuthored {
  id: number;
  body: string | null;
  user: { login: string } | null;
}

export class GitHubPullRequestReviewsClient implements PullRequestReviews {
  readonly platform = Platform.GitHub;
  private readonly http: TrackerHttp;
  private readonly repoPath: string;
  private readonly repository: string;
  private readonly now: () => number;
  private readonly selfLogin: () => Promise<string>;

  constructor(options: GitHubPullRequestsOptions) {
    ({ repoPath: this.repoPath, repository: this.repository, http: this.http } = gitHubRepository(options));
    this.now = options.http?.now ?? Date.now;
    this.selfLogin = rememberedLookup(() => gitHubLogin(this.http, this.repository));
  }

  static fromConfig(repo: RepoConfig, http?: TrackerHttpOptions): GitHubPullRequestReviewsClient {
    return clientForRepository(Platform.GitHub, repo, (token) => new GitHubPullRequestReviewsClient({ repoUrl: repo.url, apiUrl: repo.api_url, token, repository: repo.name, http }));
  }

  read(number: number): Promise<PullRequestState> {
    return inRepository(this.repository, async () => stateOf(await this.pull(number)));
  }

  diff(number: number): Promise<PullRequestDiff> {
    return inRepository(this.repository, async () => {
      const pull = await this.pull(number);
      const files = await this.pages<GitHubPullFile>(`${this.repoPath}/pulls/${pullNumber(number)}/files`);
      const listed = files.filter((f) => typeof f?.filename === 'string');
      return { headSha: pull.head.sha, baseSha: pull.base.sha, files: listed.map(fileOf), truncated: (pull.changed_files ?? 0) > listed.length };
    });
  }

  postReview(number: number, review: ReviewDraft, marker: string): Promise<PostedReview> {
    return inRepository(this.repository, async () => {
      const self = await this.selfLogin();
      const pull = await this.pull(number);
      const replaced = await this.replacePrevious(number, marker, self);
      if (await this.submit(number, pull.head.sha, review.summary, review.comments)) return { anchored: review.comments.length, unanchored: 0, replaced };
      // One line outside the diff fails the whole review: keep the comments the diff shows.
      const shown = await this.shownLines(number);
      const fits = (c: InlineComment): boolean => [c.line, c.endLine ?? c.line].every((line) => shown.get(c.path)?.has(line) === true);
      const inline = review.comments.filter(fits);
      const refused = review.comments.filter((c) => !fits(c));
      if (await this.submit(number, pull.head.sha, summaryWith(review.summary, refused), inline)) return { anchored: inline.length, unanchored: refused.length, replaced };
      if (inline.length > 0 && (await this.submit(number, pull.head.sha, summaryWith(review.summary, review.comments), []))) {
        return { anchored: 0, unanchored: review.comments.length, replaced };
      }
      throw refusal(this.platform, this.repository, `GitHub refused the review of pull request #${number} (422)`, 422);
    });
  }

  upsertComment(number: number, body: string, marker: string): Promise<void> {
    return inRepository(this.repository, async () => {
      const self = await this.selfLogin();
      const comments = await this.pages<GitHubAuthored>(`${this.repoPath}/issues/${pullNumber(number)}/comments`);
      const previous = comments.filter((c) => isOwnMarked(c.body, c.user?.login, self, marker)).at(-1);
      if (previous) {
        await this.http.request({ method: 'PATCH', path: `${this.repoPath}/issues/comments/${previous.id}`, headers: API_HEADERS, body: { body } });
      } else {
        await this.http.request({ method: 'POST', path: `${this.repoPath}/issues/${number}/comments`, headers: API_HEADERS, body: { body } });
      }
    });
  }

  /** Deletes the previous review's inline comments and turns its body into a superseded note. */
  private async replacePrevious(number: number, marker: string, self: string): Promise<number> {
    const comments = await this.pages<GitHubAuthored>(`${this.repoPath}/pulls/${number}/comments`);
    const own = comments.filter((c) => isOwnMarked(c.body, c.user?.login, self, marker));
    for (const comment of own) {
      // 404: already gone (deleted by hand, or by a concurrent re-review).
      await this.http.request({ method: 'DELETE', path: `${this.repoPath}/pulls/comments/${comment.id}`, headers: API_HEADERS, passStatuses: [404] });
    }
    const reviews = await this.pages<GitHubAuthored>(`${this.repoPath}/pulls/${number}/reviews`);
    const ownReviews = reviews.filter((r) => isOwnMarked(r.body, r.user?.login, self, marker) && !isSupersededNote(r.body ?? ''));
    const note = supersededNote(new Date(this.now()));
    for (const previous of ownReviews) {
      await this.http.request({ method: 'PUT', path: `${this.repoPath}/pulls/${number}/reviews/${previous.id}`, headers: API_HEADERS, body: { body: note } });
    }
    return own.length + ownReviews.length;
  }

  /** Submits one review; false when GitHub refused its comments' positions (422). */
  private async submit(number: number, commitId: string, summary: string, comments: readonly InlineComment[]): Promise<boolean> {
    const res = await this.http.request<{ message?: string; errors?: unknown }>({
      method: 'POST',
      path: `${this.repoPath}/pulls/${number}/reviews`,
      headers: API_HEADERS,
      body: { commit_id: commitId, body: summary, event: 'COMMENT', comments: comments.map(reviewComment) },
      passStatuses: [422],
    });
    if (res.status !== 422) return true;
    if (comments.length === 0) {
      throw refusal(this.platform, this.repository, `GitHub refused the review of pull request #${number}: ${quoteHost(JSON.stringify(res.body ?? null))}`, 422);
    }
    return false;
  }

  /** New-side lines each file's hunks show: the lines GitHub lets a comment sit on. */
  private async shownLines(number: number): Promise<Map<string, Set<number>>> {
    const files = await this.pages<GitHubPullFile>(`${this.repoPath}/pulls/${number}/files`);
    return new Map(files.map((f) => [f.filename, new Set(hasHunks(f.patch) ? newSideLines(f.patch).shown : [])]));
  }

  private async pull(number: number): Promise<GitHubPullWithRefs> {
    const res = await this.http.request<GitHubPullWithRefs>({ method: 'GET', path: `${this.repoPath}/pulls/${pullNumber(number)}`, headers: API_HEADERS });
    return res.body;
  }

  private pages<T>(path: string): Promise<T[]> {
    return gitHubPages<T>(this.http, path);
  }
}

function stateOf(pull: GitHubPullWithRefs): PullRequestState {
  return {
    ...toRef(pull),
    headSha: pull.head.sha,
    baseSha: pull.base.sha,
    startSha: pull.base.sha,
    // A deleted fork leaves `head.repo` null: still not this repository.
    sameRepository: pull.head.repo != null && pull.head.repo.full_name?.toLowerCase() === pull.base.repo?.full_name?.toLowerCase(),
    author: pull.user?.login ?? null,
    fetchRef: `refs/pull/${pull.number}/head`,
  };
}

const STATUS: Record<GitHubPullFile['status'], ChangedFileStatus> = {
  added: 'added',
  copied: 'added',
  removed: 'deleted',
  renamed: 'renamed',
  modified: 'modified',
  changed: 'modified',
  unchanged: 'modified',
};

function fileOf(file: GitHubPullFile): PullRequestFile {
  const status = STATUS[file.status] ?? 'modified';
  const patch = hasHunks(file.patch) ? file.patch : null;
  return {
    path: file.filename,
    previousPath: status === 'renamed' ? (file.previous_filename ?? null) : null,
    status,
    changedLines: patch !== null && status !== 'deleted' ? newSideLines(patch).changed : [],
    patch,
  };
}

/** GitHub's multi-line comments name their last line `line` and their first `start_line`. */
function reviewComment(comment: InlineComment): Record<string, unknown> {
  const multiLine = comment.endLine !== null && comment.endLine > comment.line;
  return multiLine
    ? { path: comment.path, start_line: comment.line, start_side: 'RIGHT', line: comment.endLine, side: 'RIGHT', body: comment.body }
    : { path: comment.path, line: comment.line, side: 'RIGHT', body: comment.body };
}
