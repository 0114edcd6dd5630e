import type { RepoConfig, TriggerConfig } from '../../config/service-config.js';
import { bearerAuth, nextLink, TrackerHttp, type TrackerHttpOptions } from '../http/tracker-http.js';
import { Platform } from '../platform.js';
import {
  assertLifecycleLabel,
  sameName,
  statusFromLabels,
  statusLabelsOf,
  TrackerError,
  withLifecycleLabel,
  type LabelReplaceResult,
  type ListTicketsQuery,
  type PolledTicket,
  type PollQuery,
  type TicketComment,
  type TicketSnapshot,
  type TrackerClient,
  type TriggerSet,
} from '../tracker-client.js';
import { parseGitHubRepoUrl } from './github-api.js';
import { gitHubTriggeredAt, pollGitHubIssues } from './github-poll.js';
import type { CreatedTicket, NewTicket } from '../ticket-creation.js';
import { createGitHubIssue } from './github-ticket-creation.js';

/**
 * Platform A: GitHub REST v3 (api.github.com or a GitHub Enterprise Server base URL).
 * Lifecycle writes send the full labels array with `If-Match: <ETag of the read>`; 412 is the
 * `PreconditionFailed` outcome. Status is a label (see tracker-client.ts).
 */
export interface GitHubTrackerOptions {
  /** `https://github.com/acme/shop-web` (or `.git`), or a GHES repository URL. */
  repoUrl: string;
  /** Default `https://api.github.com`; for another host `https://<host>/api/v3`. */
  apiUrl?: string | null;
  token: string;
  /** Labels that act as statuses (trigger statuses, done, needs-clarification). */
  statusLabels?: readonly string[];
  http?: TrackerHttpOptions;
}

interface GitHubLabel {
  name: string;
}
interface GitHubIssue {
  number: number;
  title?: string | null;
  /** Markdown; null (not '') when the issue has no description. Also in list responses. */
  body?: string | null;
  html_url?: string | null;
  state: string;
  labels: (GitHubLabel | string)[];
  pull_request?: unknown;
  updated_at: string;
}
interface GitHubComment {
  id: number;
  body: string | null;
  user: { login: string } | null;
}

const API_HEADERS = { Accept: 'application/vnd.github+json', 'X-GitHub-Api-Version': '2022-11-28' };

export class GitHubTrackerClient implements TrackerClient {
  readonly platform = Platform.GitHub;
  private readonly http: TrackerHttp;
  private readonly repoPath: string;
  private readonly statusLabels: readonly string[];

  constructor(options: GitHubTrackerOptions) {
    const { owner, repo, apiBase } = parseGitHubRepoUrl(options.repoUrl);
    this.repoPath = `repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}`;
    this.http = new TrackerHttp(this.platform, options.apiUrl ?? apiBase, bearerAuth(options.token), options.http);
    this.statusLabels = options.statusLabels ?? [];
  }

  static fromConfig(repo: RepoConfig, trigger?: TriggerConfig | null, http?: TrackerHttpOptions): GitHubTrackerClient {
    if (!repo.auth_secret) throw new TrackerError(`repository ${repo.name}: auth_secret is not set`, Platform.GitHub, null, false);
    return new GitHubTrackerClient({ repoUrl: repo.url, apiUrl: repo.api_url, token: repo.auth_secret, statusLabels: statusLabelsOf(trigger), http });
  }

  async readTicket(ticket: string): Promise<TicketSnapshot> {
    const res = await this.http.request<GitHubIssue>({ method: 'GET', path: this.issuePath(ticket), headers: API_HEADERS });
    return { ...this.snapshot(res.body), concurrencyToken: res.headers.get('etag') };
  }

  async replaceLifecycleLabel(ticket: string, next: string | null, read: TicketSnapshot): Promise<LabelReplaceResult> {
    assertLifecycleLabel(this.platform, next);
    if (!read.concurrencyToken) {
      throw new TrackerError(`issue ${ticket}: the read carries no ETag; re-read before a conditional update`, this.platform, null, false);
    }
    const res = await this.http.request<GitHubIssue>({
      method: 'PATCH',
      path: this.issuePath(ticket),
      headers: { ...API_HEADERS, 'If-Match': read.concurrencyToken },
      body: { labels: withLifecycleLabel(read.labels, next) },
      passStatuses: [412],
    });
    return res.status === 412 ? { outcome: 'PreconditionFailed' } : { outcome: 'Updated' };
  }

  /** Adds the status label, then removes the other configured status labels present. */
  async setStatus(ticket: string, status: string): Promise<void> {
    const res = await this.http.request<GitHubLabel[]>({
      method: 'POST',
      path: `${this.issuePath(ticket)}/labels`,
      headers: API_HEADERS,
      body: { labels: [status] },
      idempotent: true,
    });
    const stale = res.body.map((l) => l.name).filter((name) => !sameName(name, status) && this.statusLabels.some((s) => sameName(s, name)));
    for (const name of stale) {
      await this.http.request({
        method: 'DELETE',
        path: `${this.issuePath(ticket)}/labels/${encodeURIComponent(name)}`,
        headers: API_HEADERS,
        passStatuses: [404],
      });
    }
  }

  createTicket(ticket: NewTicket): Promise<CreatedTicket> {
    return createGitHubIssue(this.http, this.repoPath, API_HEADERS, ticket);
  }

  async postComment(ticket: string, body: string): Promise<string> {
    const res = await this.http.request<GitHubComment>({ method: 'POST', path: `${this.issuePath(ticket)}/comments`, headers: API_HEADERS, body: { body } });
    return String(res.body.id);
  }

  /** Issue comments come in ascending id order, i.e. oldest first; timeline events are not comments. */
  async listComments(ticket: string): Promise<TicketComment[]> {
    const comments = await this.paginate<GitHubComment>(`${this.issuePath(ticket)}/comments`, {});
    return comments.map((c) => ({ id: String(c.id), body: c.body ?? '', author: c.user?.login ?? null }));
  }

  /** Open issues (pull requests excluded); one query per status since `labels=` is an AND. */
  async listTickets(query: ListTicketsQuery = {}): Promise<TicketSnapshot[]> {
    const labels = query.labels ?? [];
    const labelSets = query.statuses && query.statuses.length > 0 ? query.statuses.map((s) => [s, ...labels]) : [labels];
    const found = new Map<number, TicketSnapshot>();
    for (const set of labelSets) {
      const q = { state: 'open', labels: set.length > 0 ? set.join(',') : undefined };
      for (const issue of await this.paginate<GitHubIssue>(`${this.repoPath}/issues`, q)) {
        if (issue.pull_request === undefined && !found.has(issue.number)) {
          found.set(issue.number, { ...this.snapshot(issue), concurrencyToken: null });
        }
      }
    }
    return [...found.values()].sort((a, b) => Number(a.ticket) - Number(b.ticket));
  }

  /** See github-poll.ts: one request in steady state, one paged request per trigger label in a full sweep. */
  async pollTickets(query: PollQuery): Promise<PolledTicket[]> {
    const issues = await pollGitHubIssues<GitHubIssue>(this.http, `${this.repoPath}/issues`, query);
    return issues.map((issue) => ({ ...this.snapshot(issue), concurrencyToken: null, updatedAt: issue.updated_at }));
  }

  /** From the issue's events (`labeled`), paged. */
  async triggeredAt(ticket: string, trigger: TriggerSet): Promise<Date | null> {
    return gitHubTriggeredAt(this.http, this.issuePath(ticket), trigger);
  }

  private snapshot(issue: GitHubIssue): Omit<TicketSnapshot, 'concurrencyToken'> {
    const labels = issue.labels.map((l) => (typeof l === 'string' ? l : l.name));
    return {
      ticket: String(issue.number),
      labels,
      status: statusFromLabels(labels, this.statusLabels),
      title: issue.title ?? null,
      description: issue.body || null,
      url: issue.html_url ?? null,
    };
  }

  private async paginate<T>(path: string, query: Record<string, string | undefined>): Promise<T[]> {
    const out: T[] = [];
    let next: string | null = path;
    let q: Record<string, string | number | undefined> | undefined = { ...query, per_page: 100 };
    while (next !== null) {
      const res: { headers: Headers; body: T[] } = await this.http.request<T[]>({ method: 'GET', path: next, query: q, headers: API_HEADERS });
      out.push(...res.body);
      next = nextLink(res.headers);
      q = undefined; // the Link URL carries the query
    }
    return out;
  }

  private issuePath(ticket: string): string {
    const n = ticket.replace(/^#/, '');
    if (!/^\d+$/.test(n)) throw new TrackerError(`not a GitHub issue number: ${JSON.stringify(ticket)}`, this.platform, null, false);
    return `${this.repoPath}/issues/${n}`;
  }
}
