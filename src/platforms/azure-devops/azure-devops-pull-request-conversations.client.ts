import type { RepoConfig } from '../../config/service-config.js';
import type { PullRequestConversations } from '../../conversations/pull-request-conversations.js';
import type { DiscussionItem } from '../../conversations/run-conversation.js';
import { byTime } from '../discussion-order.js';
import type { TrackerHttp, TrackerHttpOptions } from '../http/tracker-http.js';
import { Platform } from '../platform.js';
import { clientForRepository, inRepository, refusal } from '../pull-request-errors.js';
import { rememberedLookup } from '../remembered-lookup.js';
import { TrackerError } from '../tracker-client.js';
import { type AzureDevOpsPullRequestsOptions, azureDevOpsRepository } from './azure-devops-pull-requests.client.js';
import { type AdoComment, type AdoThread, azureDevOpsIdentity, azureDevOpsThreads, liveComments } from './azure-devops-reads.js';

/**
 * What a rework reads on Azure DevOps: every live comment of every thread of the pull request
 * (`GET …/pullRequests/{id}/threads`, one answer, not paged). A thread is open while its status
 * is active or pending and resolved otherwise; the host's own threads (votes, pushes) have no
 * status and carry `system` comments. Ids are `<thread>/<comment>`: comment ids restart per thread.
 */

/** Statuses as names (7.1) and as the numbers older servers send. */
const OPEN = new Set(['active', 'pending', '1', '6']);
const UNSET = new Set(['unknown', '0']);
const SYSTEM = new Set(['system', '3']);

export class AzureDevOpsPullRequestConversationsClient implements PullRequestConversations {
  readonly platform = Platform.AzureDevOps;
  private readonly http: TrackerHttp;
  private readonly repoPath: string;
  private readonly repository: string;
  private readonly uniqueName: () => Promise<string>;

  constructor(options: AzureDevOpsPullRequestsOptions) {
    ({ repoPath: this.repoPath, repository: this.repository, http: this.http } = azureDevOpsRepository(options));
    this.uniqueName = rememberedLookup(async () => {
      const { uniqueName } = await azureDevOpsIdentity(this.http, this.repository);
      if (!uniqueName) throw refusal(this.platform, this.repository, 'Azure DevOps did not name the token\'s account (connectionData: no properties.Account)', null);
      return uniqueName;
    });
  }

  static fromConfig(repo: RepoConfig, http?: TrackerHttpOptions): AzureDevOpsPullRequestConversationsClient {
    return clientForRepository(Platform.AzureDevOps, repo, (token) => new AzureDevOpsPullRequestConversationsClient({ repoUrl: repo.url, apiUrl: repo.api_url, pat: token, repository: repo.name, http }));
  }

  self(): Promise<string> {
    return inRepository(this.repository, () => this.uniqueName());
  }

  discussion(number: number): Promise<DiscussionItem[]> {
    return inRepository(this.repository, async () => {
      if (!Number.isInteger(number) || number <= 0) throw new TrackerError(`not a pull request id: ${number}`, Platform.AzureDevOps, null, false);
      const threads = await azureDevOpsThreads(this.http, `${this.repoPath}/pullRequests/${number}`);
      return byTime(threads.flatMap((t) => liveComments(t).map((c) => itemOf(t, c))));
    });
  }
}

function itemOf(thread: AdoThread, comment: AdoComment): DiscussionItem {
  const status = thread.status === undefined || thread.status === null ? null : String(thread.status);
  const context = thread.threadContext ?? null;
  return {
    id: `${thread.id}/${comment.id}`,
    author: comment.author?.uniqueName ?? null,
    body: comment.content ?? '',
    createdAt: comment.publishedDate ?? '',
    path: context?.filePath ? context.filePath.replace(/^\/+/, '') : null,
    line: context?.rightFileStart?.line ?? null,
    threadId: String(thread.id),
    resolved: status === null || UNSET.has(status) ? null : !OPEN.has(status),
    system: SYSTEM.has(String(comment.commentType ?? '')),
  };
}
