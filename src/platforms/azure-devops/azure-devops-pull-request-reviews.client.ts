import type { RepoConfig } from '../../config/service-config.js';
import type { TrackerHttp, TrackerHttpOptions } from '../http/tracker-http.js';
import { Platform } from '../platform.js';
import { clientForRepository, inRepository, refusal } from '../pull-request-errors.js';
import type { InlineComment, PostedReview, PullRequestDiff, PullRequestReviews, PullRequestState, ReviewDraft } from '../pull-request-review.js';
import { rememberedLookup } from '../remembered-lookup.js';
import { isOwnMarked, unanchoredNote } from '../review-text.js';
import { TrackerError } from '../tracker-client.js';
import { AzureDevOpsPullRequestDiffReader, type AdoIteration } from './azure-devops-pull-request-diff.js';
import { type AzureDevOpsPullRequestsOptions, adoPullRequestRef, azureDevOpsRepository } from './azure-devops-pull-requests.client.js';
import { type AdoThread, azureDevOpsIdentity, azureDevOpsThreads, liveComments } from './azure-devops-reads.js';

/**
 * Reviews on Azure DevOps Git REST 7.1. The diff is read by AzureDevOpsPullRequestDiffReader. A
 * review is one thread with the summary and one thread per inline comment, anchored with a
 * right-file context (`rightFileStart`/`rightFileEnd`, the new side); threads are created active,
 * and a thread Azure DevOps refuses (400) becomes a general one saying where it belongs.
 *
 * Replacing the previous review: threads cannot be deleted, so each comment of it (carrying the
 * marker and written by the token's identity, `GET {org}/_apis/connectionData`) is deleted, and
 * a thread left with no one else's comment is closed so that it neither shows as active nor
 * blocks a "comments resolved" policy.
 */

interface AdoPullRequestRead {
  pullRequestId: number;
  status: 'active' | 'completed' | 'abandoned' | 'notSet';
  title: string;
  description?: string | null;
  sourceRefName: string;
  targetRefName: string;
  lastMergeSourceCommit?: { commitId: string };
  lastMergeTargetCommit?: { commitId: string };
  /** Present when the source branch is in a fork. */
  forkSource?: { repository?: { id?: string } } | null;
  createdBy?: { uniqueName?: string } | null;
}
const API = { 'api-version': '7.1' };
const ACTIVE = 1;
const CLOSED = 4;
const TEXT_COMMENT = 1;

export class AzureDevOpsPullRequestReviewsClient implements PullRequestReviews {
  readonly platform = Platform.AzureDevOps;
  private readonly http: TrackerHttp;
  private readonly repoPath: string;
  private readonly webUrl: string;
  private readonly repository: string;
  private readonly diffs: AzureDevOpsPullRequestDiffReader;
  private readonly selfId: () => Promise<string>;

  constructor(options: AzureDevOpsPullRequestsOptions) {
    ({ repoPath: this.repoPath, webUrl: this.webUrl, repository: this.repository, http: this.http } = azureDevOpsRepository(options));
    this.diffs = new AzureDevOpsPullRequestDiffReader(this.http, this.repoPath);
    this.selfId = rememberedLookup(async () => (await azureDevOpsIdentity(this.http, this.repository)).id);
  }

  static fromConfig(repo: RepoConfig, http?: TrackerHttpOptions): AzureDevOpsPullRequestReviewsClient {
    return clientForRepository(Platform.AzureDevOps, repo, (token) => new AzureDevOpsPullRequestReviewsClient({ repoUrl: repo.url, apiUrl: repo.api_url, pat: token, repository: repo.name, http }));
  }

  read(number: number): Promise<PullRequestState> {
    return inRepository(this.repository, async () => {
      const res = await this.http.request<AdoPullRequestRead>({ method: 'GET', path: this.pullRequestPath(number), query: API });
      const iteration = await this.diffs.lastIteration(number);
      return this.stateOf(res.body, iteration);
    });
  }

  diff(number: number): Promise<PullRequestDiff> {
    return inRepository(this.repository, async () => {
      this.pullRequestPath(number);
      const iteration = await this.diffs.lastIteration(number);
      if (!iteration) throw refusal(this.platform, this.repository, `pull request ${number} has no iteration yet`, null, true);
      return this.diffs.read(number, iteration);
    });
  }

  postReview(number: number, review: ReviewDraft, marker: string): Promise<PostedReview> {
    return inRepository(this.repository, async () => {
      const self = await this.selfId();
      const replaced = await this.replacePrevious(number, marker, self);
      await this.thread(number, review.summary, null);
      let anchored = 0;
      for (const comment of review.comments) {
        if (await this.thread(number, comment.body, comment)) anchored++;
        else await this.thread(number, unanchoredNote(comment), null);
      }
      return { anchored, unanchored: review.comments.length - anchored, replaced };
    });
  }

  upsertComment(number: number, body: string, marker: string): Promise<void> {
    return inRepository(this.repository, async () => {
      const self = await this.selfId();
      const general = (await this.threads(number)).filter((t) => !t.threadContext);
      const previous = general.flatMap((t) => liveComments(t).filter((c) => isOwnMarked(c.content, c.author?.id, self, marker)).map((c) => ({ thread: t.id, comment: c.id }))).at(-1);
      if (previous) {
        await this.http.request({ method: 'PATCH', path: `${this.pullRequestPath(number)}/threads/${previous.thread}/comments/${previous.comment}`, query: API, body: { content: body } });
      } else await this.thread(number, body, null);
    });
  }

  /** Deletes the previous review's comments and closes the threads left with none of anyone else's. */
  private async replacePrevious(number: number, marker: string, self: string): Promise<number> {
    let replaced = 0;
    for (const thread of await this.threads(number)) {
      const live = liveComments(thread);
      const own = live.filter((c) => isOwnMarked(c.content, c.author?.id, self, marker));
      if (own.length === 0) continue;
      for (const comment of own) {
        await this.http.request({ method: 'DELETE', path: `${this.pullRequestPath(number)}/threads/${thread.id}/comments/${comment.id}`, query: API, passStatuses: [404] });
      }
      if (own.length === live.length) {
        await this.http.request({ method: 'PATCH', path: `${this.pullRequestPath(number)}/threads/${thread.id}`, query: API, body: { status: CLOSED } });
      }
      replaced += own.length;
    }
    return replaced;
  }

  /** A new thread; with a comment, anchored on its new-side lines. False when Azure DevOps refuses the anchor. */
  private async thread(number: number, content: string, anchor: InlineComment | null): Promise<boolean> {
    const threadContext = anchor && {
      filePath: `/${anchor.path.replace(/^\/+/, '')}`,
      rightFileStart: { line: anchor.line, offset: 1 },
      rightFileEnd: { line: Math.max(anchor.line, anchor.endLine ?? anchor.line), offset: 1 },
    };
    const res = await this.http.request({
      method: 'POST',
      path: `${this.pullRequestPath(number)}/threads`,
      query: API,
      body: { comments: [{ parentCommentId: 0, content, commentType: TEXT_COMMENT }], status: ACTIVE, ...(threadContext ? { threadContext } : {}) },
      passStatuses: anchor ? [400] : [],
    });
    return res.status !== 400;
  }

  private threads(number: number): Promise<AdoThread[]> {
    return azureDevOpsThreads(this.http, this.pullRequestPath(number));
  }

  private stateOf(pr: AdoPullRequestRead, iteration: AdoIteration | null): PullRequestState {
    const headSha = iteration?.sourceRefCommit?.commitId ?? pr.lastMergeSourceCommit?.commitId;
    const baseSha = iteration?.targetRefCommit?.commitId ?? pr.lastMergeTargetCommit?.commitId;
    if (!headSha || !baseSha) throw refusal(this.platform, this.repository, `pull request ${pr.pullRequestId} has no commits yet`, null, true);
    return {
      ...adoPullRequestRef(pr, this.webUrl),
      headSha,
      baseSha,
      startSha: baseSha,
      sameRepository: !pr.forkSource,
      author: pr.createdBy?.uniqueName ?? null,
      fetchRef: `refs/pull/${pr.pullRequestId}/merge`,
    };
  }

  private pullRequestPath(number: number): string {
    if (!Number.isInteger(number) || number <= 0) throw new TrackerError(`not a pull request id: ${number}`, Platform.AzureDevOps, null, false);
    return `${this.repoPath}/pullRequests/${number}`;
  }
}

