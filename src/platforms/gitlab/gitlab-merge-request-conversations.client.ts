import type { RepoConfig } from '../../config/service-config.js';
import type { PullRequestConversations } from '../../conversations/pull-request-conversations.js';
import type { DiscussionItem } from '../../conversations/run-conversation.js';
import { byTime } from '../discussion-order.js';
import type { TrackerHttp, TrackerHttpOptions } from '../http/tracker-http.js';
import { Platform } from '../platform.js';
import { clientForRepository, inRepository } from '../pull-request-errors.js';
import { rememberedLookup } from '../remembered-lookup.js';
import { TrackerError } from '../tracker-client.js';
import { type GitLabMergeRequestsOptions, gitLabProject } from './gitlab-merge-requests.client.js';
import { gitLabPages, gitLabUsername } from './gitlab-reads.js';

/**
 * What a rework reads on GitLab: every note of every discussion of the merge request
 * (`GET /merge_requests/:iid/discussions`, paged), GitLab's own activity notes flagged `system`
 * (a request for changes is one of them); and a reviewer's state (`GET …/reviewers`). A
 * discussion is resolved when each of its resolvable notes is; a plain comment is not resolvable.
 */

interface GitLabDiscussion {
  id: string;
  notes?: GitLabNote[];
}
interface GitLabNote {
  id: number;
  body: string | null;
  author: { username: string } | null;
  created_at: string;
  system: boolean;
  resolvable?: boolean;
  resolved?: boolean;
  position?: { new_path?: string | null; new_line?: number | null } | null;
}
interface GitLabReviewer {
  user?: { username?: string } | null;
  state?: string | null;
}

export class GitLabMergeRequestConversationsClient implements PullRequestConversations {
  readonly platform = Platform.GitLab;
  private readonly http: TrackerHttp;
  private readonly projectPath: string;
  private readonly repository: string;
  private readonly username: () => Promise<string>;

  constructor(options: GitLabMergeRequestsOptions) {
    ({ projectPath: this.projectPath, repository: this.repository, http: this.http } = gitLabProject(options));
    this.username = rememberedLookup(() => gitLabUsername(this.http, this.repository));
  }

  static fromConfig(repo: RepoConfig, http?: TrackerHttpOptions): GitLabMergeRequestConversationsClient {
    return clientForRepository(Platform.GitLab, repo, (token) => new GitLabMergeRequestConversationsClient({ repoUrl: repo.url, apiUrl: repo.api_url, token, repository: repo.name, http }));
  }

  self(): Promise<string> {
    return inRepository(this.repository, () => this.username());
  }

  discussion(number: number): Promise<DiscussionItem[]> {
    return inRepository(this.repository, async () => {
      const discussions = await gitLabPages<GitLabDiscussion>(this.http, `${this.mergeRequestPath(number)}/discussions`);
      return byTime(discussions.flatMap(itemsOf));
    });
  }

  reviewerState(number: number, username: string): Promise<string | null> {
    return inRepository(this.repository, async () => {
      const res = await this.http.request<GitLabReviewer[]>({ method: 'GET', path: `${this.mergeRequestPath(number)}/reviewers` });
      const wanted = username.toLowerCase();
      const reviewer = (Array.isArray(res.body) ? res.body : []).find((r) => r.user?.username?.toLowerCase() === wanted);
      return reviewer?.state ?? null;
    });
  }

  private mergeRequestPath(number: number): string {
    if (!Number.isInteger(number) || number <= 0) throw new TrackerError(`not a merge request iid: ${number}`, Platform.GitLab, null, false);
    return `${this.projectPath}/merge_requests/${number}`;
  }
}

function itemsOf(discussion: GitLabDiscussion): DiscussionItem[] {
  const notes = discussion.notes ?? [];
  const resolvable = notes.filter((n) => n.resolvable === true);
  const resolved = resolvable.length === 0 ? null : resolvable.every((n) => n.resolved === true);
  return notes.map((n) => ({
    id: String(n.id),
    author: n.author?.username ?? null,
    body: n.body ?? '',
    createdAt: n.created_at,
    path: n.position?.new_path ?? null,
    line: n.position?.new_line ?? null,
    threadId: discussion.id,
    resolved,
    system: n.system === true,
  }));
}
