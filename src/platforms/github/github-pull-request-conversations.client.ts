import type { RepoConfig } from '../../config/service-config.js';
import type { PullRequestConversations } from '../../conversations/pull-request-conversations.js';
import type { DiscussionItem } from '../../conversations/run-conversation.js';
import { byTime } from '../discussion-order.js';
import type { TrackerHttp, TrackerHttpOptions } from '../http/tracker-http.js';
import { Platform } from '../platform.js';
import { clientForRepository, inRepository } from '../pull-request-errors.js';
import { rememberedLookup } from '../remembered-lookup.js';
import { type GitHubPullRequestsOptions, gitHubRepository, pullNumber } from './github-pull-requests.client.js';
import { gitHubLogin, gitHubPages } from './github-reads.js';
import { gitHubGraphQl, reviewThreadComments } from './github-review-threads.js';

/**
 * What a rework reads on GitHub: the conversation (`GET /issues/{n}/comments`), the bodies of
 * submitted reviews (`GET /pulls/{n}/reviews`; pending ones are their author's alone) and the
 * inline review comments with their thread's resolution (GraphQL `reviewThreads`). Ids are
 * `issue-comment/<id>`, `review/<id>` and `review-comment/<id>`: GitHub numbers each kind apart.
 */

interface GitHubIssueComment {
  id: number;
  body: string | null;
  user: { login: string } | null;
  created_at: string;
}
interface GitHubReview {
  id: number;
  body: string | null;
  user: { login: string } | null;
  state: string;
  submitted_at?: string | null;
}

export class GitHubPullRequestConversationsClient implements PullRequestConversations {
  readonly platform = Platform.GitHub;
  private readonly http: TrackerHttp;
  private readonly graphQl: TrackerHttp;
  private readonly owner: string;
  private readonly name: string;
  private readonly repoPath: string;
  private readonly repository: string;
  private readonly login: () => Promise<string>;

  constructor(options: GitHubPullRequestsOptions) {
    let apiBase: string;
    ({ owner: this.owner, name: this.name, apiBase, repoPath: this.repoPath, repository: this.repository, http: this.http } = gitHubRepository(options));
    this.graphQl = gitHubGraphQl(apiBase, options.token, options.http);
    this.login = rememberedLookup(() => gitHubLogin(this.http, this.repository));
  }

  static fromConfig(repo: RepoConfig, http?: TrackerHttpOptions): GitHubPullRequestConversationsClient {
    return clientForRepository(Platform.GitHub, repo, (token) => new GitHubPullRequestConversationsClient({ repoUrl: repo.url, apiUrl: repo.api_url, token, repository: repo.name, http }));
  }

  self(): Promise<string> {
    return inRepository(this.repository, () => this.login());
  }

  discussion(number: number): Promise<DiscussionItem[]> {
    return inRepository(this.repository, async () => {
      const n = pullNumber(number);
      const [comments, reviews, inline] = await Promise.all([
        gitHubPages<GitHubIssueComment>(this.http, `${this.repoPath}/issues/${n}/comments`),
        gitHubPages<GitHubReview>(this.http, `${this.repoPath}/pulls/${n}/reviews`),
        reviewThreadComments(this.graphQl, { owner: this.owner, name: this.name, number: n, repository: this.repository }),
      ]);
      return byTime([...comments.map(fromIssueComment), ...reviews.filter(hasSubmittedBody).map(fromReview), ...inline]);
    });
  }
}

function fromIssueComment(c: GitHubIssueComment): DiscussionItem {
  return { id: `issue-comment/${c.id}`, author: c.user?.login ?? null, body: c.body ?? '', createdAt: c.created_at, path: null, line: null, threadId: null, resolved: null, system: false };
}

function hasSubmittedBody(r: GitHubReview): r is GitHubReview & { submitted_at: string } {
  return r.state !== 'PENDING' && typeof r.submitted_at === 'string' && (r.body ?? '').trim() !== '';
}

function fromReview(r: GitHubReview & { submitted_at: string }): DiscussionItem {
  return { id: `review/${r.id}`, author: r.user?.login ?? null, body: r.body ?? '', createdAt: r.submitted_at, path: null, line: null, threadId: null, resolved: null, system: false };
}
