import type { RepoConfig } from '../../config/service-config.js';
import { basicAuth, TrackerHttp, type TrackerHttpOptions } from '../http/tracker-http.js';
import { Platform } from '../platform.js';
import { clientForRepository, inRepository, quoteHost, refusal } from '../pull-request-errors.js';
import type { PullRequestDraft, PullRequestHost, PullRequestRef } from '../pull-request-host.js';
import { TrackerError } from '../tracker-client.js';
import { parseAzureDevOpsRepoUrl } from './azure-devops-repo-url.js';

/**
 * Pull requests on Azure DevOps Git REST 7.1, with the PAT as Basic password like the tracker
 * client. Azure DevOps refuses a second active pull request for the same source and target with
 * 409 TF401179 (`GitPullRequestExistsException`); `create` then returns that one. A branch that
 * does not exist is 400 TF401398. Descriptions are limited to 4000 characters (see fitDescription).
 */
export interface AzureDevOpsPullRequestsOptions {
  /** `https://dev.azure.com/{org}/{project}/_git/{repo}` (see parseAzureDevOpsRepoUrl). */
  repoUrl: string;
  /** API base: an organization or collection URL; default the one `repoUrl` is under. */
  apiUrl?: string | null;
  pat: string;
  /** Named in error messages; default `project/repo`. */
  repository?: string;
  http?: TrackerHttpOptions;
}

export interface AdoPullRequest {
  pullRequestId: number;
  status: 'active' | 'completed' | 'abandoned' | 'notSet';
  title: string;
  description?: string | null;
  sourceRefName: string;
  targetRefName: string;
}
interface AdoRefusal {
  message?: string;
  typeKey?: string;
}

const API = { 'api-version': '7.1' };
const HEADS = 'refs/heads/';
/** The list endpoint cuts every description to 400 characters; the single read does not. */
const LIST_DESCRIPTION_LIMIT = 400;

/** A repository's API connection and web page, shared by the publishing and the review client. */
export function azureDevOpsRepository(options: AzureDevOpsPullRequestsOptions): { repoPath: string; webUrl: string; repository: string; http: TrackerHttp } {
  const { organizationUrl, project, repository } = parseAzureDevOpsRepoUrl(options.repoUrl);
  return {
    repoPath: `${encodeURIComponent(project)}/_apis/git/repositories/${encodeURIComponent(repository)}`,
    webUrl: `${organizationUrl}/${encodeURIComponent(project)}/_git/${encodeURIComponent(repository)}`,
    repository: options.repository ?? `${project}/${repository}`,
    http: new TrackerHttp(Platform.AzureDevOps, options.apiUrl ?? organizationUrl, basicAuth('', options.pat), options.http),
  };
}

export class AzureDevOpsPullRequestsClient implements PullRequestHost {
  readonly platform = Platform.AzureDevOps;
  private readonly http: TrackerHttp;
  private readonly repoPath: string;
  /** `{org}/{project}/_git/{repo}`: a pull request's web page is this plus `/pullrequest/{id}`. */
  private readonly webUrl: string;
  private readonly repository: string;

  constructor(options: AzureDevOpsPullRequestsOptions) {
    ({ repoPath: this.repoPath, webUrl: this.webUrl, repository: this.repository, http: this.http } = azureDevOpsRepository(options));
  }

  static fromConfig(repo: RepoConfig, http?: TrackerHttpOptions): AzureDevOpsPullRequestsClient {
    return clientForRepository(Platform.AzureDevOps, repo, (token) => new AzureDevOpsPullRequestsClient({ repoUrl: repo.url, apiUrl: repo.api_url, pat: token, repository: repo.name, http }));
  }

  defaultBranch(): Promise<string> {
    return inRepository(this.repository, async () => {
      const res = await this.http.request<{ defaultBranch?: string | null }>({ method: 'GET', path: this.repoPath, query: API });
      const ref = res.body.defaultBranch;
      // An empty repository has no default branch until its first push.
      if (!ref) throw refusal(this.platform, this.repository, 'Azure DevOps reports no default branch (an empty repository?)', res.status);
      return withoutHeads(ref);
    });
  }

  findOpen(head: string, base: string): Promise<PullRequestRef | null> {
    return inRepository(this.repository, async () => {
      const res = await this.http.request<{ value: AdoPullRequest[] }>({
        method: 'GET',
        path: `${this.repoPath}/pullrequests`,
        query: {
          'searchCriteria.sourceRefName': `${HEADS}${head}`,
          'searchCriteria.targetRefName': `${HEADS}${base}`,
          'searchCriteria.status': 'active',
          ...API,
        },
      });
      const found = res.body.value.find((pr) => pr.sourceRefName === `${HEADS}${head}` && pr.targetRefName === `${HEADS}${base}`);
      if (!found) return null;
      if ((found.description ?? '').length < LIST_DESCRIPTION_LIMIT) return this.toRef(found);
      const full = await this.http.request<AdoPullRequest>({ method: 'GET', path: `${this.repoPath}/pullrequests/${found.pullRequestId}`, query: API });
      return this.toRef(full.body);
    });
  }

  create(draft: PullRequestDraft): Promise<{ pullRequest: PullRequestRef; created: boolean }> {
    return inRepository(this.repository, async () => {
      const res = await this.http.request<AdoPullRequest | AdoRefusal>({
        method: 'POST',
        path: `${this.repoPath}/pullrequests`,
        query: API,
        body: { sourceRefName: `${HEADS}${draft.head}`, targetRefName: `${HEADS}${draft.base}`, title: draft.title, description: fitDescription(draft.body) },
        passStatuses: [400, 409],
      });
      if (res.status === 200 || res.status === 201) return { pullRequest: this.toRef(res.body as AdoPullRequest), created: true };
      const answer = res.body as AdoRefusal | string | undefined;
      const said = quoteHost(typeof answer === 'string' ? answer : (answer?.message ?? JSON.stringify(answer ?? null)));
      const what = `cannot open a pull request from ${draft.head} into ${draft.base}`;
      const exists = res.status === 409 && (/TF401179/.test(said) || (typeof answer === 'object' && answer.typeKey === 'GitPullRequestExistsException'));
      if (!exists) throw refusal(this.platform, this.repository, `${what}: HTTP ${res.status}: ${said}`, res.status);
      const existing = await this.findOpen(draft.head, draft.base);
      // Completed or abandoned between the answer and our look-up: a later attempt can open a new one.
      if (!existing) throw refusal(this.platform, this.repository, `${what}: Azure DevOps says one is active (${said}), yet none is`, 409, true);
      return { pullRequest: existing, created: false };
    });
  }

  update(number: number, change: { title: string; body: string }): Promise<PullRequestRef> {
    return inRepository(this.repository, async () => {
      const res = await this.http.request<AdoPullRequest>({
        method: 'PATCH',
        path: `${this.repoPath}/pullrequests/${pullRequestId(number)}`,
        query: API,
        body: { title: change.title, description: fitDescription(change.body) },
      });
      return this.toRef(res.body);
    });
  }

  private toRef(pr: AdoPullRequest): PullRequestRef {
    return adoPullRequestRef(pr, this.webUrl);
  }

}

export const DESCRIPTION_LIMIT = 4000;
const CUT_NOTICE = '\n\n… (cut to Azure DevOps’s 4000-character limit)';

/**
 * Azure DevOps refuses a pull request description over 4000 characters (400, "A description for
 * a pull request must not be longer than 4000 characters"), so a longer body is cut and ends with
 * a line saying so. The limit counts UTF-16 code units, as JavaScript's `length` does; the cut
 * never splits a surrogate pair. Whatever the body must keep (the service marker, the ticket
 * link) belongs at its start.
 */
export function fitDescription(body: string): string {
  if (body.length <= DESCRIPTION_LIMIT) return body;
  let end = DESCRIPTION_LIMIT - CUT_NOTICE.length;
  const last = body.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${body.slice(0, end)}${CUT_NOTICE}`;
}

function withoutHeads(ref: string): string {
  return ref.startsWith(HEADS) ? ref.slice(HEADS.length) : ref;
}

function pullRequestId(number: number): number {
  if (!Number.isInteger(number) || number <= 0) throw new TrackerError(`not a pull request id: ${number}`, Platform.AzureDevOps, null, false);
  return number;
}

/** A pull request as the service sees it, from the host's answer and the repository's web page. */
export function adoPullRequestRef(pr: AdoPullRequest, webUrl: string): PullRequestRef {
  return {
    number: pr.pullRequestId,
    url: `${webUrl}/pullrequest/${pr.pullRequestId}`,
    state: pr.status === 'active' ? 'open' : pr.status === 'completed' ? 'merged' : 'closed',
    title: pr.title,
    body: pr.description ?? '',
    head: withoutHeads(pr.sourceRefName),
    base: withoutHeads(pr.targetRefName),
  };
}
