import type { RepoConfig } from '../../config/service-config.js';
import { bearerAuth, TrackerHttp, type TrackerHttpOptions } from '../http/tracker-http.js';
import { Platform } from '../platform.js';
import { clientForRepository, inRepository, quoteHost, refusal } from '../pull-request-errors.js';
import type { PullRequestDraft, PullRequestHost, PullRequestRef } from '../pull-request-host.js';
import { TrackerError } from '../tracker-client.js';
import { API_HEADERS, parseGitHubRepoUrl } from './github-api.js';

/**
 * Pull requests on GitHub REST v3 (api.github.com or GitHub Enterprise Server), with the
 * repository's token as the tracker client sends it. GitHub refuses a second open pull request
 * for the same head and base with a 422 whose `errors` say "A pull request already exists for
 * owner:branch."; `create` then returns that one. Every other 422 (a branch that is not on the
 * host, "No commits between …") is an error saying what GitHub said.
 */
export interface GitHubPullRequestsOptions {
  /** `https://github.com/acme/shop-web` (or `.git`), or a GHES repository URL. */
  repoUrl: string;
  /** Default `https://api.github.com`; for another host `https://<host>/api/v3`. */
  apiUrl?: string | null;
  token: string;
  /** Named in error messages; default `owner/repo`. */
  repository?: string;
  http?: TrackerHttpOptions;
}

export interface GitHubPull {
  number: number;
  html_url: string;
  state: 'open' | 'closed';
  merged_at?: string | null;
  title: string;
  body: string | null;
  head: { ref: string };
  base: { ref: string };
}
interface GitHubValidationFailure {
  message?: string;
  errors?: ({ field?: string; code?: string; message?: string } | string)[];
}

/** A repository's API connection, shared by the publishing and the review client. */
export function gitHubRepository(options: GitHubPullRequestsOptions): { owner: string; name: string; apiBase: string; repoPath: string; repository: string; http: TrackerHttp } {
  const { owner, repo, apiBase } = parseGitHubRepoUrl(options.repoUrl);
  const base = options.apiUrl ?? apiBase;
  return {
    owner,
    name: repo,
    apiBase: base,
    repoPath: `repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}`,
    repository: options.repository ?? `${owner}/${repo}`,
    http: new TrackerHttp(Platform.GitHub, base, bearerAuth(options.token), options.http),
  };
}


export class GitHubPullRequestsClient implements PullRequestHost {
  readonly platform = Platform.GitHub;
  private readonly http: TrackerHttp;
  private readonly owner: string;
  private readonly repoPath: string;
  private readonly repository: string;

  constructor(options: GitHubPullRequestsOptions) {
    ({ owner: this.owner, repoPath: this.repoPath, repository: this.repository, http: this.http } = gitHubRepository(options));
  }

  static fromConfig(repo: RepoConfig, http?: TrackerHttpOptions): GitHubPullRequestsClient {
    return clientForRepository(Platform.GitHub, repo, (token) => new GitHubPullRequestsClient({ repoUrl: repo.url, apiUrl: repo.api_url, token, repository: repo.name, http }));
  }

  defaultBranch(): Promise<string> {
    return inRepository(this.repository, async () => {
      const res = await this.http.request<{ default_branch?: string | null }>({ method: 'GET', path: this.repoPath, headers: API_HEADERS });
      const branch = res.body.default_branch;
      if (!branch) throw refusal(this.platform, this.repository, 'GitHub reports no default branch (an empty repository?)', res.status);
      return branch;
    });
  }

  findOpen(head: string, base: string): Promise<PullRequestRef | null> {
    return inRepository(this.repository, async () => {
      // `head` filters only as `owner:branch`; a bare branch name would match every pull request.
      const res = await this.http.request<GitHubPull[]>({
        method: 'GET',
        path: `${this.repoPath}/pulls`,
        query: { state: 'open', head: `${this.owner}:${head}`, base, per_page: 100 },
        headers: API_HEADERS,
      });
      const found = res.body.find((pull) => pull.head.ref === head && pull.base.ref === base);
      return found ? toRef(found) : null;
    });
  }

  create(draft: PullRequestDraft): Promise<{ pullRequest: PullRequestRef; created: boolean }> {
    return inRepository(this.repository, async () => {
      const res = await this.http.request<GitHubPull | GitHubValidationFailure>({
        method: 'POST',
        path: `${this.repoPath}/pulls`,
        headers: API_HEADERS,
        body: { title: draft.title, head: draft.head, base: draft.base, body: draft.body },
        passStatuses: [422],
      });
      if (res.status !== 422) return { pullRequest: toRef(res.body as GitHubPull), created: true };
      const failure = res.body as GitHubValidationFailure;
      const what = `cannot open a pull request from ${draft.head} into ${draft.base}`;
      if (!messagesOf(failure).some((m) => /pull request already exists/i.test(m))) {
        throw refusal(this.platform, this.repository, `${what}: ${describeFailure(failure, draft)}`, 422);
      }
      const existing = await this.findOpen(draft.head, draft.base);
      // Closed between GitHub's answer and our look-up: a later attempt can open a new one.
      if (!existing) throw refusal(this.platform, this.repository, `${what}: GitHub says one already exists, yet none is open`, 422, true);
      return { pullRequest: existing, created: false };
    });
  }

  update(number: number, change: { title: string; body: string }): Promise<PullRequestRef> {
    return inRepository(this.repository, async () => {
      const res = await this.http.request<GitHubPull>({
        method: 'PATCH',
        path: `${this.repoPath}/pulls/${pullNumber(number)}`,
        headers: API_HEADERS,
        body: { title: change.title, body: change.body },
      });
      return toRef(res.body);
    });
  }
}

export function toRef(pull: GitHubPull): PullRequestRef {
  return {
    number: pull.number,
    url: pull.html_url,
    // The list carries no `merged`; `merged_at` is set on both the list and the single read.
    state: pull.merged_at ? 'merged' : pull.state === 'open' ? 'open' : 'closed',
    title: pull.title,
    body: pull.body ?? '',
    head: pull.head.ref,
    base: pull.base.ref,
  };
}

function messagesOf(failure: GitHubValidationFailure): string[] {
  return (failure.errors ?? []).map((e) => (typeof e === 'string' ? e : (e.message ?? ''))).filter((m) => m !== '');
}

/** GitHub's 422 in words: `{field: head, code: invalid}` means the branch is not on GitHub. */
function describeFailure(failure: GitHubValidationFailure, draft: PullRequestDraft): string {
  const parts = (failure.errors ?? []).map((e) => {
    if (typeof e === 'string') return e;
    if (e.message) return e.message;
    if (e.code === 'invalid' && e.field === 'head') return `the head branch ${draft.head} is not on GitHub (head invalid)`;
    if (e.code === 'invalid' && e.field === 'base') return `the base branch ${draft.base} is not on GitHub (base invalid)`;
    return [e.field, e.code].filter(Boolean).join(' ');
  });
  return quoteHost(`${failure.message ?? 'Validation Failed'}: ${parts.join('; ') || 'no details'}`);
}

export function pullNumber(number: number): number {
  if (!Number.isInteger(number) || number <= 0) throw new TrackerError(`not a pull request number: ${number}`, Platform.GitHub, null, false);
  return number;
}
