import type { RepoConfig } from '../../config/service-config.js';
import type { QueryValue, TrackerHttp, TrackerHttpOptions } from '../http/tracker-http.js';
import { Platform } from '../platform.js';
import { clientForRepository, inRepository, refusal } from '../pull-request-errors.js';
import type { InlineComment, PostedReview, PullRequestDiff, PullRequestFile, PullRequestReviews, PullRequestState, ReviewDraft } from '../pull-request-review.js';
import { rememberedLookup } from '../remembered-lookup.js';
import { isOwnMarked, unanchoredNote } from '../review-text.js';
import { TrackerError } from '../tracker-client.js';
import { hasHunks, newSideLines } from '../unified-diff.js';
import { type GitLabMergeRequest, type GitLabMergeRequestsOptions, gitLabProject, toRef } from './gitlab-merge-requests.client.js';
import { gitLabPages, gitLabUsername } from './gitlab-reads.js';

/**
 * Reviews on GitLab REST v4. The diff is `GET /merge_requests/:iid/diffs` (paged, GitLab 15.7+),
 * the unified `diff` of each file; `changes_count` ending in `+` means GitLab cut the list. A
 * review is a note with the summary, then one discussion per inline comment positioned on the
 * new line against the merge request's `diff_refs`; where GitLab refuses the position (400: the
 * line is not in its diff) the comment becomes a plain note saying where it belongs.
 *
 * Replacing the previous review: GitLab notes can be deleted, so every note carrying the marker
 * and written by the token's account (`GET /user`) is deleted (`DELETE /notes/:id`), replies of
 * other people stay.
 */

interface GitLabMergeRequestWithRefs extends GitLabMergeRequest {
  sha: string;
  diff_refs: { base_sha: string; start_sha: string; head_sha: string } | null;
  source_project_id: number;
  target_project_id: number;
  author?: { username: string } | null;
  /** A string; `"1000+"` when GitLab stopped counting. */
  changes_count?: string | null;
}
interface GitLabFileDiff {
  old_path: string;
  new_path: string;
  new_file: boolean;
  renamed_file: boolean;
  deleted_file: boolean;
  diff: string;
}
interface GitLabNote {
  id: number;
  body: string;
  system: boolean;
  author: { username: string } | null;
}

export class GitLabMergeRequestReviewsClient implements PullRequestReviews {
  readonly platform = Platform.GitLab;
  private readonly http: TrackerHttp;
  private readonly projectPath: string;
  private readonly repository: string;
  private readonly selfUsername: () => Promise<string>;

  constructor(options: GitLabMergeRequestsOptions) {
    ({ projectPath: this.projectPath, repository: this.repository, http: this.http } = gitLabProject(options));
    this.selfUsername = rememberedLookup(() => gitLabUsername(this.http, this.repository));
  }

  static fromConfig(repo: RepoConfig, http?: TrackerHttpOptions): GitLabMergeRequestReviewsClient {
    return clientForRepository(Platform.GitLab, repo, (token) => new GitLabMergeRequestReviewsClient({ repoUrl: repo.url, apiUrl: repo.api_url, token, repository: repo.name, http }));
  }

  read(number: number): Promise<PullRequestState> {
    return inRepository(this.repository, async () => this.stateOf(await this.mergeRequest(number)));
  }

  diff(number: number): Promise<PullRequestDiff> {
    return inRepository(this.repository, async () => {
      const mr = await this.mergeRequest(number);
      const state = this.stateOf(mr);
      const listed = await this.pages<GitLabFileDiff>(`${this.mergeRequestPath(number)}/diffs`);
      const counted = mr.changes_count ?? '';
      const truncated = counted.endsWith('+') || listed.length < (Number.parseInt(counted, 10) || 0);
      const files = listed.filter((f) => typeof f?.new_path === 'string' && typeof f.old_path === 'string').map(fileOf);
      return { headSha: state.headSha, baseSha: state.baseSha, files, truncated };
    });
  }

  postReview(number: number, review: ReviewDraft, marker: string): Promise<PostedReview> {
    return inRepository(this.repository, async () => {
      const self = await this.selfUsername();
      const state = await this.read(number);
      const replaced = await this.replacePrevious(number, marker, self);
      const files = new Map((await this.diff(number)).files.map((f) => [f.path, f]));
      await this.note(number, review.summary);
      let anchored = 0;
      for (const comment of review.comments) {
        if (await this.discussion(number, state, files.get(comment.path) ?? null, comment)) anchored++;
        else await this.note(number, unanchoredNote(comment));
      }
      return { anchored, unanchored: review.comments.length - anchored, replaced };
    });
  }

  upsertComment(number: number, body: string, marker: string): Promise<void> {
    return inRepository(this.repository, async () => {
      const self = await this.selfUsername();
      const notes = await this.pages<GitLabNote>(`${this.mergeRequestPath(number)}/notes`, { sort: 'asc', order_by: 'created_at' });
      const previous = notes.filter((n) => !n.system && isOwnMarked(n.body, n.author?.username, self, marker)).at(-1);
      if (previous) await this.http.request({ method: 'PUT', path: `${this.mergeRequestPath(number)}/notes/${previous.id}`, body: { body } });
      else await this.note(number, body);
    });
  }

  /** Deletes every note of the previous review (its summary, its discussions' first notes). */
  private async replacePrevious(number: number, marker: string, self: string): Promise<number> {
    const discussions = await this.pages<{ id: string; notes: GitLabNote[] }>(`${this.mergeRequestPath(number)}/discussions`);
    const own = discussions.flatMap((d) => d.notes).filter((n) => !n.system && isOwnMarked(n.body, n.author?.username, self, marker));
    for (const note of own) {
      await this.http.request({ method: 'DELETE', path: `${this.mergeRequestPath(number)}/notes/${note.id}`, passStatuses: [404] });
    }
    return own.length;
  }

  /** A discussion positioned on the comment's new line; false when GitLab refuses the position. */
  private async discussion(number: number, state: PullRequestState, file: PullRequestFile | null, comment: InlineComment): Promise<boolean> {
    if (file === null || file.status === 'deleted') return false;
    const range = comment.endLine !== null && comment.endLine > comment.line ? `_Lines ${comment.line}–${comment.endLine}_\n\n` : '';
    const res = await this.http.request({
      method: 'POST',
      path: `${this.mergeRequestPath(number)}/discussions`,
      body: {
        body: `${range}${comment.body}`,
        position: {
          position_type: 'text',
          base_sha: state.baseSha,
          start_sha: state.startSha,
          head_sha: state.headSha,
          old_path: file.previousPath ?? file.path,
          new_path: file.path,
          new_line: comment.line,
        },
      },
      passStatuses: [400],
    });
    return res.status !== 400;
  }

  private async note(number: number, body: string): Promise<void> {
    await this.http.request({ method: 'POST', path: `${this.mergeRequestPath(number)}/notes`, body: { body } });
  }

  private stateOf(mr: GitLabMergeRequestWithRefs): PullRequestState {
    const refs = mr.diff_refs;
    // GitLab fills diff_refs once it has prepared the merge request's diff, moments after creation.
    if (!refs) throw refusal(this.platform, this.repository, `merge request !${mr.iid} has no diff yet (diff_refs empty)`, null, true);
    return {
      ...toRef(mr),
      headSha: refs.head_sha,
      baseSha: refs.base_sha,
      startSha: refs.start_sha,
      sameRepository: mr.source_project_id === mr.target_project_id,
      author: mr.author?.username ?? null,
      fetchRef: `refs/merge-requests/${mr.iid}/head`,
    };
  }

  private async mergeRequest(number: number): Promise<GitLabMergeRequestWithRefs> {
    return (await this.http.request<GitLabMergeRequestWithRefs>({ method: 'GET', path: this.mergeRequestPath(number) })).body;
  }

  private mergeRequestPath(number: number): string {
    if (!Number.isInteger(number) || number <= 0) throw new TrackerError(`not a merge request iid: ${number}`, Platform.GitLab, null, false);
    return `${this.projectPath}/merge_requests/${number}`;
  }

  private pages<T>(path: string, query: Record<string, QueryValue> = {}): Promise<T[]> {
    return gitLabPages<T>(this.http, path, query);
  }
}

function fileOf(file: GitLabFileDiff): PullRequestFile {
  const status = file.new_file ? 'added' : file.deleted_file ? 'deleted' : file.renamed_file ? 'renamed' : 'modified';
  const patch = hasHunks(file.diff) ? file.diff : null;
  return {
    path: status === 'deleted' ? file.old_path : file.new_path,
    previousPath: status === 'renamed' ? file.old_path : null,
    status,
    changedLines: patch !== null && status !== 'deleted' ? newSideLines(patch).changed : [],
    patch,
  };
}
