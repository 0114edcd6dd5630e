import type { RepoConfig } from '../../config/service-config.js';
import { tokenHeaderAuth, TrackerHttp, type TrackerHttpOptions } from '../http/tracker-http.js';
import { Platform } from '../platform.js';
import { clientForRepository, inRepository, quoteHost, refusal } from '../pull-request-errors.js';
import type { PullRequestDraft, PullRequestHost, PullRequestRef } from '../pull-request-host.js';
import { TrackerError } from '../tracker-client.js';
import { parseGitLabRepoUrl } from './gitlab-tracker.client.js';

/**
 * Merge requests on GitLab REST v4, the project addressed by its URL-encoded path, with the
 * repository's token in `PRIVATE-TOKEN` as the tracker client sends it. GitLab refuses a second
 * open merge request for the same branches with 409 "Another open merge request already exists
 * for this source branch: !n"; `create` then returns that one. A branch that does not exist is a
 * 400 (`{"message":{"source_branch":["does not exist"]}}`), the same branch twice a 422.
 */
export interface GitLabMergeRequestsOptions {
  /** `https://gitlab.example/group/sub/project` (or `.git`). */
  repoUrl: string;
  /** Default `<repo origin>/api/v4`. */
  apiUrl?: string | null;
  token: string;
  /** Named in error messages; default the project path. */
  repository?: string;
  http?: TrackerHttpOptions;
}

/** A merge request as the API answers it (the fields every client reads). */
export interface GitLabMergeRequest {
  iid: number;
  web_url: string;
  state: 'opened' | 'closed' | 'merged' | 'locked';
  title: string;
  description: string | null;
  source_branch: string;
  target_branch: string;
}
/** `message` is a list, a field → errors map, or a string; Grape's own checks answer `error`. */
interface GitLabRefusal {
  message?: string | string[] | Record<string, string[]>;
  error?: string;
}

/** A project's API connection, shared by the publishing and the review client. */
export function gitLabProject(options: GitLabMergeRequestsOptions): { projectPath: string; repository: string; http: TrackerHttp } {
  const { projectPath, apiBase } = parseGitLabRepoUrl(options.repoUrl);
  return {
    projectPath: `projects/${encodeURIComponent(projectPath)}`,
    repository: options.repository ?? projectPath,
    http: new TrackerHttp(Platform.GitLab, options.apiUrl ?? apiBase, tokenHeaderAuth('PRIVATE-TOKEN', options.token), options.http),
  };
}

export class GitLabMergeRequestsClient implements PullRequestHost {
  readonly platform = Platform.GitLab;
  private readonly http: TrackerHttp;
  private readonly projectPath: string;
  private readonly repository: string;

  constructor(options: GitLabMergeRequestsOptions) {
    ({ projectPath: this.projectPath, repository: this.repository, http: this.http } = gitLabProject(options));
  }

  static fromConfig(repo: RepoConfig, http?: TrackerHttpOptions): GitLabMergeRequestsClient {
    return clientForRepository(Platform.GitLab, repo, (token) => new GitLabMergeRequestsClient({ repoUrl: repo.url, apiUrl: repo.api_url, token, repository: repo.name, http }));
  }

  defaultBranch(): Promise<string> {
    return inRepository(this.repository, async () => {
      const res = await this.http.request<{ default_branch?: string | null }>({ method: 'GET', path: this.projectPath });
      const branch = res.body.default_branch;
      if (!branch) throw refusal(this.platform, this.repository, 'GitLab reports no default branch (an empty repository?)', res.status);
      return branch;
    });
  }

  findOpen(head: string, base: string): Promise<PullRequestRef | null> {
    return inRepository(this.repository, async () => {
      const res = await this.http.request<GitLabMergeRequest[]>({
        method: 'GET',
        path: `${this.projectPath}/merge_requests`,
        query: { state: 'opened', source_branch: head, target_branch: base, per_page: 100 },
      });
      const found = res.body.find((mr) => mr.source_branch === head && mr.target_branch === base);
      return found ? toRef(found) : null;
    });
  }

  create(draft: PullRequestDraft): Promise<{ pullRequest: PullRequestRef; created: boolean }> {
    return inRepository(this.repository, async () => {
      const res = await this.http.request<GitLabMergeRequest | GitLabRefusal>({
        method: 'POST',
        path: `${this.projectPath}/merge_requests`,
        body: { source_branch: draft.head, target_branch: draft.base, title: draft.title, description: draft.body, remove_source_branch: false },
        passStatuses: [400, 409, 422],
      });
      if (res.status === 200 || res.status === 201) return { pullRequest: toRef(res.body as GitLabMergeRequest), created: true };
      const what = `cannot open a merge request from ${draft.head} into ${draft.base}`;
      const said = describeRefusal(res.body as GitLabRefusal);
      if (res.status !== 409 || !/already exists/i.test(said)) throw refusal(this.platform, this.repository, `${what}: HTTP ${res.status}: ${said}`, res.status);
      const existing = await this.findOpen(draft.head, draft.base);
      // GitLab's message speaks of the source branch alone: should the open one target another
      // branch, findOpen cannot see it, and a retry would not change that.
      if (!existing) throw refusal(this.platform, this.repository, `${what}: GitLab says one already exists (${said}), yet none is open into ${draft.base}`, 409);
      return { pullRequest: existing, created: false };
    });
  }

  update(number: number, change: { title: string; body: string }): Promise<PullRequestRef> {
    return inRepository(this.repository, async () => {
      const res = await this.http.request<GitLabMergeRequest>({
        method: 'PUT',
        path: `${this.projectPath}/merge_requests/${mergeRequestIid(number)}`,
        body: { title: change.title, description: change.body },
      });
      return toRef(res.body);
    });
  }
}

/** The service's view of a merge request (shared by the publishing and review clients). */
export function toRef(mr: GitLabMergeRequest): PullRequestRef {
  return {
    number: mr.iid,
    url: mr.web_url,
    // `locked` is the short state while a merge is being carried out; it is no longer open.
    state: mr.state === 'opened' ? 'open' : mr.state === 'merged' ? 'merged' : 'closed',
    title: mr.title,
    body: mr.description ?? '',
    head: mr.source_branch,
    base: mr.target_branch,
  };
}

/** GitLab's refusal in words: `{source_branch: ['does not exist']}` → `source_branch does not exist`. */
function describeRefusal(body: GitLabRefusal | string | undefined): string {
  if (body === undefined) return 'no details';
  if (typeof body === 'string') return quoteHost(body);
  const { message, error } = body;
  if (typeof message === 'string') return quoteHost(message);
  if (Array.isArray(message)) return quoteHost(message.join('; '));
  if (message && typeof message === 'object') {
    return quoteHost(Object.entries(message).map(([field, problems]) => `${field} ${[problems].flat().join(', ')}`).join('; '));
  }
  return quoteHost(error ?? JSON.stringify(body));
}

function mergeRequestIid(number: number): number {
  if (!Number.isInteger(number) || number <= 0) throw new TrackerError(`not a merge request iid: ${number}`, Platform.GitLab, null, false);
  return number;
}
