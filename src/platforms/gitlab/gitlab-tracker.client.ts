import type { RepoConfig, TriggerConfig } from '../../config/service-config.js';
import { tokenHeaderAuth, TrackerHttp, type TrackerHttpOptions } from '../http/tracker-http.js';
import { Platform } from '../platform.js';
import type { CreatedTicket, NewTicket } from '../ticket-creation.js';
import { createGitLabIssue } from './gitlab-ticket-creation.js';
import {
  assertLifecycleLabel,
  lifecycleLabelsToRemove,
  sameName,
  statusFromLabels,
  statusLabelsOf,
  TrackerError,
  type LabelReplaceResult,
  type ListTicketsQuery,
  type PolledTicket,
  type PollQuery,
  type TicketComment,
  type TicketSnapshot,
  type TrackerClient,
  type TriggerSet,
} from '../tracker-client.js';
import { gitLabTriggeredAt, pollGitLabIssues } from './gitlab-poll.js';

/**
 * Platform B: GitLab REST v4. Lifecycle writes use `add_labels` / `remove_labels`, which touch
 * only the named labels; GitLab has no conditional update, so the write always reports
 * `Updated` (last write wins; the caller's claim lock is the race guard). To keep one lifecycle
 * label even after a stale read, every known lifecycle label other than `next` is removed.
 */
export interface GitLabTrackerOptions {
  /** `https://gitlab.example/group/sub/project` (or `.git`). */
  repoUrl: string;
  /** Default `<repo origin>/api/v4` (`https://gitlab.com/api/v4` for gitlab.com). */
  apiUrl?: string | null;
  token: string;
  statusLabels?: readonly string[];
  http?: TrackerHttpOptions;
}

interface GitLabIssue {
  iid: number;
  title?: string | null;
  /** Markdown; null or '' when the issue has none. Also in list responses. */
  description?: string | null;
  web_url?: string | null;
  state: string;
  labels: string[];
  updated_at: string;
}
interface GitLabNote {
  id: number;
  body: string;
  system: boolean;
  author: { username: string } | null;
}

export class GitLabTrackerClient implements TrackerClient {
  readonly platform = Platform.GitLab;
  private readonly http: TrackerHttp;
  private readonly projectPath: string;
  private readonly statusLabels: readonly string[];

  constructor(options: GitLabTrackerOptions) {
    const { projectPath, apiBase } = parseGitLabRepoUrl(options.repoUrl);
    this.projectPath = `projects/${encodeURIComponent(projectPath)}`;
    this.http = new TrackerHttp(this.platform, options.apiUrl ?? apiBase, tokenHeaderAuth('PRIVATE-TOKEN', options.token), options.http);
    this.statusLabels = options.statusLabels ?? [];
  }

  static fromConfig(repo: RepoConfig, trigger?: TriggerConfig | null, http?: TrackerHttpOptions): GitLabTrackerClient {
    if (!repo.auth_secret) throw new TrackerError(`repository ${repo.name}: auth_secret is not set`, Platform.GitLab, null, false);
    return new GitLabTrackerClient({ repoUrl: repo.url, apiUrl: repo.api_url, token: repo.auth_secret, statusLabels: statusLabelsOf(trigger), http });
  }

  async readTicket(ticket: string): Promise<TicketSnapshot> {
    const res = await this.http.request<GitLabIssue>({ method: 'GET', path: this.issuePath(ticket) });
    return this.snapshot(res.body);
  }

  async replaceLifecycleLabel(ticket: string, next: string | null, read: TicketSnapshot): Promise<LabelReplaceResult> {
    assertLifecycleLabel(this.platform, next);
    await this.updateLabels(ticket, next === null ? [] : [next], lifecycleLabelsToRemove(read.labels, next));
    return { outcome: 'Updated' };
  }

  /** Adds the status label and removes the other configured status labels. */
  async setStatus(ticket: string, status: string): Promise<void> {
    await this.updateLabels(ticket, [status], this.statusLabels.filter((s) => !sameName(s, status)));
  }

  createTicket(ticket: NewTicket): Promise<CreatedTicket> {
    return createGitLabIssue(this.http, this.projectPath, ticket);
  }

  async postComment(ticket: string, body: string): Promise<string> {
    const res = await this.http.request<GitLabNote>({ method: 'POST', path: `${this.issuePath(ticket)}/notes`, body: { body } });
    return String(res.body.id);
  }

  async listComments(ticket: string): Promise<TicketComment[]> {
    const notes = await this.paginate<GitLabNote>(`${this.issuePath(ticket)}/notes`, { sort: 'asc', order_by: 'created_at' });
    return notes.filter((n) => !n.system).map((n) => ({ id: String(n.id), body: n.body, author: n.author?.username ?? null }));
  }

  /** Open issues; one query per status since `labels=` is an AND. */
  async listTickets(query: ListTicketsQuery = {}): Promise<TicketSnapshot[]> {
    const labels = query.labels ?? [];
    const labelSets = query.statuses && query.statuses.length > 0 ? query.statuses.map((s) => [s, ...labels]) : [labels];
    const found = new Map<number, TicketSnapshot>();
    for (const set of labelSets) {
      const q = { state: 'opened', labels: set.length > 0 ? set.join(',') : undefined };
      for (const issue of await this.paginate<GitLabIssue>(`${this.projectPath}/issues`, q)) {
        if (!found.has(issue.iid)) found.set(issue.iid, this.snapshot(issue));
      }
    }
    return [...found.values()].sort((a, b) => Number(a.ticket) - Number(b.ticket));
  }

  /** See gitlab-poll.ts: one request in steady state, one paged request per trigger label in a full sweep. */
  async pollTickets(query: PollQuery): Promise<PolledTicket[]> {
    const issues = await pollGitLabIssues<GitLabIssue>(this.http, `${this.projectPath}/issues`, query);
    return issues.map((issue) => ({ ...this.snapshot(issue), updatedAt: issue.updated_at }));
  }

  /** From the issue's resource label events (`add`), paged. */
  async triggeredAt(ticket: string, trigger: TriggerSet): Promise<Date | null> {
    return gitLabTriggeredAt(this.http, this.issuePath(ticket), trigger);
  }

  private async updateLabels(ticket: string, add: readonly string[], remove: readonly string[]): Promise<void> {
    const body: Record<string, string> = {};
    if (add.length > 0) body['add_labels'] = add.join(',');
    if (remove.length > 0) body['remove_labels'] = remove.join(',');
    if (Object.keys(body).length === 0) return;
    await this.http.request<GitLabIssue>({ method: 'PUT', path: this.issuePath(ticket), body });
  }

  private snapshot(issue: GitLabIssue): TicketSnapshot {
    return {
      ticket: String(issue.iid),
      labels: issue.labels,
      status: statusFromLabels(issue.labels, this.statusLabels),
      title: issue.title ?? null,
      description: issue.description || null,
      url: issue.web_url ?? null,
      concurrencyToken: null,
    };
  }

  /** Offset pagination by the `X-Next-Page` header. */
  private async paginate<T>(path: string, query: Record<string, string | undefined>): Promise<T[]> {
    const out: T[] = [];
    let page: string | null = '1';
    while (page) {
      const res: { headers: Headers; body: T[] } = await this.http.request<T[]>({ method: 'GET', path, query: { ...query, per_page: 100, page } });
      out.push(...res.body);
      page = res.headers.get('x-next-page') || null;
    }
    return out;
  }

  private issuePath(ticket: string): string {
    const iid = ticket.replace(/^#/, '');
    if (!/^\d+$/.test(iid)) throw new TrackerError(`not a GitLab issue iid: ${JSON.stringify(ticket)}`, this.platform, null, false);
    return `${this.projectPath}/issues/${iid}`;
  }
}

/** Full project path (subgroups included) and default API base from a repository URL. */
export function parseGitLabRepoUrl(repoUrl: string): { projectPath: string; apiBase: string } {
  const url = new URL(repoUrl);
  const projectPath = url.pathname.replace(/^\/+|\/+$/g, '').replace(/\.git$/, '').split('/-/')[0] ?? '';
  if (!projectPath.includes('/')) throw new TrackerError(`not a project URL: ${url.origin}${url.pathname}`, Platform.GitLab, null, false);
  return { projectPath, apiBase: `${url.origin}/api/v4` };
}
