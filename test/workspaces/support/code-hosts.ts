import { join } from 'node:path';
import { REVIEW_MARKER } from '../../../src/pipelines/review/review-texts.js';
import { Platform } from '../../../src/platforms/platform.js';
import { AzureDevOpsStandIn } from '../../stand-ins/azure-devops-stand-in.js';
import type { CodeHostStandIn } from '../../stand-ins/code-host-stand-in.js';
import { branchTip, createBareRepository } from '../../stand-ins/git-repositories.js';
import { GitHubStandIn } from '../../stand-ins/github-stand-in.js';
import { GitLabStandIn } from '../../stand-ins/gitlab-stand-in.js';
import type { PullRequestSetup } from '../../stand-ins/pull-request-code.js';
import type { RecordedRequest } from '../../stand-ins/stand-in-server.js';

/**
 * One code host for the end-to-end publishing tests: a platform stand-in that serves the
 * repository's API and, mounted on the same server, its git remote (a real bare repository
 * behind `git http-backend`, refusing anyone without the token). The stand-in's branch checks
 * read the bare repository, so a pull request's head must really have been pushed. The host can
 * also be the project's ticket tracker (issues, work items), so comments, labels and statuses
 * land on it too.
 */
export interface CodeHost {
  readonly platform: Platform;
  readonly standIn: CodeHostStandIn;
  /** The repository's configured name. */
  readonly name: string;
  /** The bare repository the remote serves. */
  readonly bare: string;
  readonly token: string;
  /** The user name git sends with the token (what a leaked Basic header would carry). */
  readonly gitUser: string;
  /** The repository's `repos:` entry (no `branch:`: the default branch is read from the API). */
  repoEntry(extra?: Record<string, unknown>): Record<string, unknown>;
  /** `tracker` and the trigger block of a project whose tickets live on this host. */
  trackerConfig(doneStatus: string, defaultPipeline: string): Record<string, unknown>;
  addTicket(ticket: string, title: string, description?: string): void;
  /** Someone other than the service comments on the ticket. */
  addComment(ticket: string, body: string): void;
  /** The ticket's web page, as the tracker answers it (the pull request body links it). */
  ticketUrl(ticket: string): string;
  comments(ticket: string): string[];
  /** Labels (GitHub, GitLab) or tags (Azure DevOps). */
  labels(ticket: string): string[];
  /** Whether the trigger's done status shows on the ticket. */
  showsDoneStatus(ticket: string): boolean;
  /** The request that set the done status. */
  isDoneStatusWrite(req: RecordedRequest, ticket: string): boolean;
  /** The request that posted a comment on the ticket. */
  isCommentPost(req: RecordedRequest, ticket: string): boolean;
  pullRequests(): HostPullRequest[];
  /** Someone opens a pull request with `description` (the mounted repository's branches); answers its number. */
  openPullRequest(setup: PullRequestSetup & { description?: string }): number;
  /** The author edits the pull request's description. */
  describePullRequest(number: number, description: string): void;
  /**
   * What the service's review shows on the pull request now: the comments carrying the review's
   * marker, written by the token's account and not deleted (GitHub's superseded review bodies
   * lose the marker, so they are not among them).
   */
  serviceReviewComments(number: number): ReviewComment[];
  /** The summaries among them. */
  summaryComments(number: number): string[];
  /** Every verdict the pull request received: GitHub reviews' events, GitLab (un)approvals, Azure DevOps votes. */
  reviewVerdicts(number: number): string[];
  stop(): Promise<void>;
}

/** A review comment as a host shows it: an inline one has its new-side path and line, a summary none. */
export interface ReviewComment {
  path: string | null;
  line: number | null;
  body: string;
}

/** A pull (merge) request as the host holds it, the same shape for the three. */
export interface HostPullRequest {
  number: number;
  title: string;
  body: string;
  head: string;
  base: string;
  open: boolean;
}

export const DONE_STATUS = { [Platform.GitHub]: 'done', [Platform.GitLab]: 'done', [Platform.AzureDevOps]: 'Resolved' } as const;

export type HostKind = typeof Platform.GitHub | typeof Platform.GitLab | typeof Platform.AzureDevOps;

/** Starts the host's stand-in with a bare repository `name` (one commit on `main`) under `root`. */
export async function startCodeHost(kind: HostKind, root: string, token: string, name: string): Promise<CodeHost> {
  const bare = join(root, `${kind}-${name}.git`);
  createBareRepository(bare, { defaultBranch: 'main', files: { 'README.md': `# ${name}\n`, '.gitignore': 'build/\n' } });
  const exists = (branch: string) => branchTip(bare, branch) !== null;
  switch (kind) {
    case Platform.GitHub:
      return gitHub(await new GitHubStandIn(token, 'acme', name).start(), bare, token, name, exists);
    case Platform.GitLab:
      return gitLab(await new GitLabStandIn(token, `fin/${name}`, 70 + name.length).start(), bare, token, name, exists);
    case Platform.AzureDevOps:
      return azureDevOps(await new AzureDevOpsStandIn(token, 'acme', 'Shop', 'pipeline-bot@acme.example', name).start(), bare, token, name, exists);
  }
}

function gitHub(standIn: GitHubStandIn, bare: string, token: string, name: string, exists: (b: string) => boolean): CodeHost {
  standIn.mountGit(`/acme/${name}`, { repository: bare, credential: { username: 'x-access-token', password: token } });
  standIn.branchExists = exists;
  const issue = (ticket: string) => {
    const found = standIn.issues.get(Number(ticket));
    if (!found) throw new Error(`no issue ${ticket}`);
    return found;
  };
  const issuePath = (ticket: string) => `/repos/acme/${name}/issues/${ticket}`;
  return {
    platform: Platform.GitHub, standIn, name, bare, token, gitUser: 'x-access-token',
    repoEntry: (extra = {}) => ({ name, platform: 'platform-a', url: `${standIn.url}/acme/${name}`, api_url: standIn.apiUrl, auth_secret: token, ...extra }),
    trackerConfig: (done, pipeline) => ({ tracker: 'platform-a', platform_a_trigger: { trigger_statuses: ['ready-for-agent'], default_pipeline: pipeline, done_status: done } }),
    addTicket: (ticket, title, description) => void standIn.addIssue(Number(ticket), [], { title, body: description ?? null }),
    addComment: (ticket, body) => void standIn.addComment(Number(ticket), body),
    ticketUrl: (ticket) => `${standIn.webUrl}/issues/${ticket}`,
    comments: (ticket) => issue(ticket).comments.map((c) => c.body),
    labels: (ticket) => [...issue(ticket).labels],
    showsDoneStatus: (ticket) => issue(ticket).labels.includes(DONE_STATUS[Platform.GitHub]),
    isDoneStatusWrite: (req, ticket) =>
      req.method === 'POST' && req.path === `${issuePath(ticket)}/labels` && listOf(bodyOf(req)['labels']).includes(DONE_STATUS[Platform.GitHub]),
    isCommentPost: (req, ticket) => req.method === 'POST' && req.path === `${issuePath(ticket)}/comments`,
    pullRequests: () => standIn.pullRequests.map((p) => ({ number: p.number, title: p.title, body: p.body ?? '', head: p.head, base: p.base, open: p.state === 'open' })),
    openPullRequest: ({ description, ...setup }) => {
      const number = standIn.openPullRequest(setup);
      standIn.pullRequest(number).body = description ?? null;
      return number;
    },
    describePullRequest: (number, description) => void (standIn.pullRequest(number).body = description),
    serviceReviewComments,
    summaryComments: (number) => summariesOf(serviceReviewComments(number)),
    reviewVerdicts: (number) => standIn.pulls.reviews.reviews.filter((r) => r.pull === number).map((r) => r.event ?? 'PENDING'),
    stop: () => standIn.stop(),
  };

  function serviceReviewComments(number: number): ReviewComment[] {
    const { reviews, comments } = standIn.pulls.reviews;
    const own = (login: string, body: string) => login === standIn.login && body.includes(REVIEW_MARKER);
    return [
      ...reviews.filter((r) => r.pull === number && own(r.login, r.body)).map((r) => ({ path: null, line: null, body: r.body })),
      ...comments.filter((c) => c.pull === number && own(c.login, c.body)).map((c) => ({ path: c.path, line: c.line, body: c.body })),
    ];
  }
}

function gitLab(standIn: GitLabStandIn, bare: string, token: string, name: string, exists: (b: string) => boolean): CodeHost {
  standIn.mountGit(`/fin/${name}`, { repository: bare, credential: { username: 'oauth2', password: token } });
  standIn.branchExists = exists;
  const issue = (ticket: string) => {
    const found = standIn.issues.get(Number(ticket));
    if (!found) throw new Error(`no issue ${ticket}`);
    return found;
  };
  const issuePath = (ticket: string) => `/api/v4/projects/${encodeURIComponent(standIn.projectPath)}/issues/${ticket}`;
  return {
    platform: Platform.GitLab, standIn, name, bare, token, gitUser: 'oauth2',
    repoEntry: (extra = {}) => ({ name, platform: 'platform-b', url: `${standIn.url}/fin/${name}`, api_url: standIn.apiUrl, auth_secret: token, ...extra }),
    trackerConfig: (done, pipeline) => ({ tracker: 'platform-b', platform_b_trigger: { trigger_statuses: ['ready-for-agent'], default_pipeline: pipeline, done_status: done } }),
    addTicket: (ticket, title, description) => void standIn.addIssue(Number(ticket), [], 'opened', title, description ?? null),
    addComment: (ticket, body) => void standIn.addNote(Number(ticket), body),
    ticketUrl: (ticket) => `${standIn.webUrl}/-/issues/${ticket}`,
    comments: (ticket) => issue(ticket).notes.filter((n) => !n.system).map((n) => n.body),
    labels: (ticket) => [...issue(ticket).labels],
    showsDoneStatus: (ticket) => issue(ticket).labels.includes(DONE_STATUS[Platform.GitLab]),
    isDoneStatusWrite: (req, ticket) =>
      req.method === 'PUT' && req.path === issuePath(ticket) && listOf(bodyOf(req)['add_labels']).includes(DONE_STATUS[Platform.GitLab]),
    isCommentPost: (req, ticket) => req.method === 'POST' && req.path === `${issuePath(ticket)}/notes`,
    pullRequests: () => standIn.pullRequests.map((m) => ({ number: m.iid, title: m.title, body: m.description ?? '', head: m.sourceBranch, base: m.targetBranch, open: m.state === 'opened' })),
    openPullRequest: ({ description, ...setup }) => {
      const iid = standIn.openPullRequest(setup);
      standIn.pullRequest(iid).description = description ?? null;
      return iid;
    },
    describePullRequest: (iid, description) => void (standIn.pullRequest(iid).description = description),
    serviceReviewComments,
    summaryComments: (iid) => summariesOf(serviceReviewComments(iid)),
    reviewVerdicts: (iid) => standIn.requests
      .filter((r) => r.method === 'POST' && new RegExp(`/merge_requests/${iid}/(un)?approve$`).test(r.path))
      .map((r) => (r.path.endsWith('/unapprove') ? 'UNAPPROVE' : 'APPROVE')),
    stop: () => standIn.stop(),
  };

  function serviceReviewComments(iid: number): ReviewComment[] {
    return standIn.mergeRequests.reviews.notesOf(standIn.pullRequest(iid))
      .filter((n) => n.username === standIn.username && !n.system && n.body.includes(REVIEW_MARKER))
      .map((n) => ({ path: n.position ? String(n.position['new_path']) : null, line: n.position ? Number(n.position['new_line']) : null, body: n.body }));
  }
}

function azureDevOps(standIn: AzureDevOpsStandIn, bare: string, token: string, name: string, exists: (b: string) => boolean): CodeHost {
  // The repository's own URL spells the organization, project and repository as Azure DevOps does.
  standIn.mountGit(`/acme/Shop/_git/${name}`, { repository: bare, credential: { username: null, password: token } });
  standIn.branchExists = exists;
  const item = (ticket: string) => {
    const found = standIn.items.get(Number(ticket));
    if (!found) throw new Error(`no work item ${ticket}`);
    return found;
  };
  const itemPath = (ticket: string) => `/acme/Shop/_apis/wit/workitems/${ticket}`;
  const done = DONE_STATUS[Platform.AzureDevOps];
  return {
    platform: Platform.AzureDevOps, standIn, name, bare, token, gitUser: 'pipeline-service',
    repoEntry: (extra = {}) => ({ name, platform: 'platform-c', url: `${standIn.url}/acme/Shop/_git/${name}`, api_url: standIn.organizationUrl, auth_secret: token, ...extra }),
    trackerConfig: (doneStatus, pipeline) => ({
      tracker: 'platform-c',
      platform_c_trigger: {
        organization_url: standIn.organizationUrl, team_project: 'Shop', credentials: token,
        trigger_statuses: ['Ready for Agent'], default_pipeline: pipeline, done_status: doneStatus,
      },
    }),
    addTicket: (ticket, title, description) => void standIn.addWorkItem(Number(ticket), 'Active', [], title, description ?? null),
    addComment: (ticket, body) => void standIn.addComment(Number(ticket), body),
    ticketUrl: (ticket) => `${standIn.webOrganizationUrl}/Shop/_workitems/edit/${ticket}`,
    comments: (ticket) => item(ticket).comments.map((c) => c.text),
    labels: (ticket) => standIn.tagsOf(Number(ticket)),
    showsDoneStatus: (ticket) => item(ticket).fields['System.State'] === done,
    isDoneStatusWrite: (req, ticket) =>
      req.method === 'PATCH' && req.path.toLowerCase() === itemPath(ticket).toLowerCase() && Array.isArray(req.body)
      && (req.body as { path?: string; value?: unknown }[]).some((op) => op.path === '/fields/System.State' && op.value === done),
    isCommentPost: (req, ticket) => req.method === 'POST' && req.path.toLowerCase() === `${itemPath(ticket)}/comments`.toLowerCase(),
    pullRequests: () => standIn.pullRequests.map((p) => ({
      number: p.pullRequestId, title: p.title, body: p.description, head: p.sourceRefName.replace(/^refs\/heads\//, ''),
      base: p.targetRefName.replace(/^refs\/heads\//, ''), open: p.status === 'active',
    })),
    openPullRequest: ({ description, ...setup }) => {
      const id = standIn.openPullRequest(setup);
      standIn.pullRequest(id).description = description ?? '';
      return id;
    },
    describePullRequest: (id, description) => void (standIn.pullRequest(id).description = description),
    serviceReviewComments,
    summaryComments: (id) => summariesOf(serviceReviewComments(id)),
    // A vote (approve, wait for author, reject) is the reviewer entry's `vote`.
    reviewVerdicts: (id) => standIn.requests
      .filter((r) => ['PUT', 'PATCH', 'POST'].includes(r.method) && new RegExp(`/pullrequests/${id}/reviewers`, 'i').test(r.path))
      .map((r) => `VOTE ${String(bodyOf(r)['vote'])}`),
    stop: () => standIn.stop(),
  };

  function serviceReviewComments(id: number): ReviewComment[] {
    return standIn.pullRequest(id).threads.flatMap((t) => {
      const context = t.threadContext as { filePath?: string; rightFileStart?: { line?: number } } | null;
      return t.comments
        .filter((c) => !c.isDeleted && c.uniqueName === standIn.uniqueName && c.content.includes(REVIEW_MARKER))
        .map((c) => ({ path: context?.filePath?.replace(/^\//, '') ?? null, line: context?.rightFileStart?.line ?? null, body: c.content }));
    });
  }
}

function summariesOf(comments: readonly ReviewComment[]): string[] {
  return comments.filter((c) => c.path === null).map((c) => c.body);
}

function bodyOf(req: RecordedRequest): Record<string, unknown> {
  return req.body !== null && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {};
}

/** A label list as the clients send it: an array, or a comma-separated string. */
function listOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  return typeof value === 'string' ? value.split(',') : [];
}
