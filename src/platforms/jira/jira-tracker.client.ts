import type { TriggerConfig } from '../../config/service-config.js';
import { basicAuth, bearerAuth, TrackerHttp, type TrackerHttpOptions } from '../http/tracker-http.js';
import { Platform } from '../platform.js';
import { adfToText, isAdfDocument } from './adf-to-text.js';
import { JiraChangelog, latestTrigger } from './jira-changelog.js';
import { JIRA_ISSUE_KEY } from './jira-issue-key.js';
import type { CreatedTicket, NewTicket } from '../ticket-creation.js';
import { createJiraIssue } from './jira-ticket-creation.js';
import { buildPollJql, jiraTimestamp, jqlDateTime, jqlString } from './jira-poll.js';
import {
  assertLifecycleLabel,
  lifecycleLabelsToRemove,
  sameName,
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

/**
 * Platform D: Jira REST v2 (Cloud and Data Center). Labels change with the `update` verbs
 * (`add`/`remove`), which touch only the named labels. Jira has no conditional update: the write
 * reports `Updated`, and the caller wraps it in the 10 s label lock (the spec's mechanism).
 * Status changes go through a workflow transition whose target status has the wanted name.
 *
 * Search: Jira Cloud removed `POST /rest/api/2/search` (410 Gone, CHANGE-2046) in favour of
 * `POST /rest/api/2/search/jql` (token pagination); Data Center only has the former. The client
 * starts with `/search` and, on 404/405/410, switches to `/search/jql` for good (and back).
 */
export interface JiraTrackerOptions {
  /** `https://acme.atlassian.net` or a Data Center base URL. */
  siteUrl: string;
  /** `user:api-token` (Basic); a value without `:` is a Data Center personal access token (Bearer). */
  credentials: string;
  /** Scope of `listTickets`. */
  projectKey?: string | null;
  http?: TrackerHttpOptions;
}

interface JiraIssue {
  key: string;
  fields: {
    status?: { name: string } | null;
    labels?: string[];
    summary?: string | null;
    /** v2: wiki markup text; v3: an Atlassian Document Format document. Null when empty. */
    description?: string | object | null;
    /** `2026-11-24T06:03:58.123+0000`; only when asked for (a poll). */
    updated?: string;
  };
}
interface JiraTransition {
  id: string;
  name: string;
  to: { name: string };
}
interface JiraComment {
  id: string;
  /** v2: wiki markup text; v3: an Atlassian Document Format document. */
  body: string | object;
  author?: { name?: string; accountId?: string; displayName?: string };
}
interface JiraCommentPage {
  startAt: number;
  total: number;
  comments: JiraComment[];
}
interface LegacySearchPage {
  startAt: number;
  total: number;
  issues: JiraIssue[];
}
interface JqlSearchPage {
  issues: JiraIssue[];
  nextPageToken?: string | null;
  isLast?: boolean;
}

const PAGE = 100;
/** What a read and a search ask for (`fields=`): Jira answers only the fields named. */
const SEARCH_FIELDS = ['status', 'labels', 'summary', 'description'];
/** A poll also needs when each issue last changed (the poller's cursor). */
const POLL_FIELDS = [...SEARCH_FIELDS, 'updated'];

export class JiraTrackerClient implements TrackerClient {
  readonly platform = Platform.Jira;
  private readonly http: TrackerHttp;
  private readonly projectKey: string | null;
  /** Base of the issues' web pages (`{site}/browse/{KEY}`). */
  private readonly browseBase: string;
  private searchApi: 'legacy' | 'jql' = 'legacy';
  private readonly changelog: JiraChangelog;
  /** The searching user's time zone, which JQL date literals are read in; asked once. */
  private timeZone: Promise<string> | null = null;

  constructor(options: JiraTrackerOptions) {
    const sep = options.credentials.indexOf(':');
    const auth = sep > 0 ? basicAuth(options.credentials.slice(0, sep), options.credentials.slice(sep + 1)) : bearerAuth(options.credentials);
    this.http = new TrackerHttp(this.platform, options.siteUrl, auth, options.http);
    this.projectKey = options.projectKey ?? null;
    this.browseBase = `${options.siteUrl.replace(/\/+$/, '')}/browse/`;
    this.changelog = new JiraChangelog(this.http);
  }

  static fromConfig(trigger: TriggerConfig, http?: TrackerHttpOptions): JiraTrackerClient {
    if (!trigger.site_url || !trigger.credentials) {
      throw new TrackerError('platform_d_trigger needs site_url and credentials', Platform.Jira, null, false);
    }
    return new JiraTrackerClient({ siteUrl: trigger.site_url, credentials: trigger.credentials, projectKey: trigger.project_key, http });
  }

  async readTicket(ticket: string): Promise<TicketSnapshot> {
    const res = await this.http.request<JiraIssue>({ method: 'GET', path: this.issuePath(ticket), query: { fields: SEARCH_FIELDS.join(',') } });
    return this.snapshot(res.body);
  }

  createTicket(ticket: NewTicket): Promise<CreatedTicket> {
    return createJiraIssue(this.http, this.projectKey, this.browseBase, ticket);
  }

  async replaceLifecycleLabel(ticket: string, next: string | null, read: TicketSnapshot): Promise<LabelReplaceResult> {
    assertLifecycleLabel(this.platform, next);
    const ops: ({ add: string } | { remove: string })[] = lifecycleLabelsToRemove(read.labels, next).map((remove) => ({ remove }));
    if (next !== null) ops.push({ add: next });
    await this.http.request({ method: 'PUT', path: this.issuePath(ticket), body: { update: { labels: ops } } });
    return { outcome: 'Updated' };
  }

  /** Runs the transition whose target status is `status` (case-insensitive); no-op if already there. */
  async setStatus(ticket: string, status: string): Promise<void> {
    const path = `${this.issuePath(ticket)}/transitions`;
    const res = await this.http.request<{ transitions: JiraTransition[] }>({ method: 'GET', path });
    const transition = res.body.transitions.find((t) => sameName(t.to.name, status));
    if (!transition) {
      const current = await this.readTicket(ticket);
      if (current.status !== null && sameName(current.status, status)) return;
      throw new TrackerError(`issue ${ticket}: no transition to status ${JSON.stringify(status)} from ${JSON.stringify(current.status)}`, this.platform, null, false);
    }
    await this.http.request({ method: 'POST', path, body: { transition: { id: transition.id } } });
  }

  async postComment(ticket: string, body: string): Promise<string> {
    const res = await this.http.request<JiraComment>({ method: 'POST', path: `${this.issuePath(ticket)}/comment`, body: { body } });
    return String(res.body.id);
  }

  async listComments(ticket: string): Promise<TicketComment[]> {
    const out: TicketComment[] = [];
    for (let startAt = 0; ; ) {
      const res = await this.http.request<JiraCommentPage>({
        method: 'GET',
        path: `${this.issuePath(ticket)}/comment`,
        query: { startAt, maxResults: PAGE, orderBy: 'created' },
      });
      for (const c of res.body.comments) {
        out.push({ id: String(c.id), body: richText(c.body) ?? '', author: c.author?.name ?? c.author?.accountId ?? c.author?.displayName ?? null });
      }
      startAt += res.body.comments.length;
      if (res.body.comments.length === 0 || startAt >= res.body.total) return out;
    }
  }

  async listTickets(query: ListTicketsQuery = {}): Promise<TicketSnapshot[]> {
    const issues = await this.searchIssues(buildJql(this.projectKey, query), SEARCH_FIELDS);
    return issues.map((issue) => this.snapshot(issue));
  }

  /**
   * The poller's read (see buildPollJql), paged to the end. Steady state: one search request
   * for up to 100 changed issues; the user's time zone is asked once per client, and on Cloud
   * the first search of a client also meets the removed `/search` once (410) before switching.
   */
  async pollTickets(query: PollQuery): Promise<PolledTicket[]> {
    if (!this.projectKey) throw new TrackerError('polling Jira needs the project key (platform_d_trigger.project_key)', this.platform, null, false);
    const since = query.updatedSince === null ? null : jqlDateTime(query.updatedSince, await this.userTimeZone());
    const jql = buildPollJql(this.projectKey, query, since);
    if (jql === null) return [];
    return (await this.searchIssues(jql, POLL_FIELDS)).map((issue) => {
      const updatedAt = jiraTimestamp(issue.fields.updated);
      if (updatedAt === null) throw new TrackerError(`issue ${issue.key} came without a readable updated time`, this.platform, null, false);
      return { ...this.snapshot(issue), updatedAt };
    });
  }

  async triggeredAt(ticket: string, trigger: TriggerSet): Promise<Date | null> {
    return latestTrigger(await this.changelog.histories(this.issuePath(ticket)), trigger);
  }

  private userTimeZone(): Promise<string> {
    this.timeZone ??= this.http.request<{ timeZone?: string }>({ method: 'GET', path: 'rest/api/2/myself' }).then(
      (res) => res.body?.timeZone || 'UTC',
      (err: unknown) => {
        this.timeZone = null; // asked again next time
        throw err;
      },
    );
    return this.timeZone;
  }

  /** Every issue the JQL finds, on whichever search endpoint this Jira has (see the class comment). */
  private async searchIssues(jql: string, fields: readonly string[]): Promise<JiraIssue[]> {
    try {
      return await this.search(this.searchApi, jql, fields);
    } catch (err) {
      if (!(err instanceof TrackerError) || ![404, 405, 410].includes(err.status ?? 0)) throw err;
      const other = this.searchApi === 'legacy' ? 'jql' : 'legacy';
      const found = await this.search(other, jql, fields);
      this.searchApi = other;
      return found;
    }
  }

  private async search(api: 'legacy' | 'jql', jql: string, fields: readonly string[]): Promise<JiraIssue[]> {
    const out: JiraIssue[] = [];
    if (api === 'legacy') {
      for (let startAt = 0; ; ) {
        const body = { jql, startAt, maxResults: PAGE, fields };
        const res = await this.http.request<LegacySearchPage>({ method: 'POST', path: 'rest/api/2/search', body, idempotent: true });
        out.push(...res.body.issues);
        startAt += res.body.issues.length;
        if (res.body.issues.length === 0 || startAt >= res.body.total) return out;
      }
    }
    let nextPageToken: string | undefined;
    do {
      const body = { jql, maxResults: PAGE, fields, nextPageToken };
      const res = await this.http.request<JqlSearchPage>({ method: 'POST', path: 'rest/api/2/search/jql', body, idempotent: true });
      out.push(...res.body.issues);
      nextPageToken = res.body.isLast === true ? undefined : (res.body.nextPageToken ?? undefined);
    } while (nextPageToken);
    return out;
  }

  private snapshot(issue: JiraIssue): TicketSnapshot {
    return {
      ticket: issue.key,
      status: issue.fields.status?.name ?? null,
      labels: issue.fields.labels ?? [],
      title: issue.fields.summary ?? null,
      description: richText(issue.fields.description),
      url: `${this.browseBase}${encodeURIComponent(issue.key)}`,
      concurrencyToken: null,
    };
  }

  private issuePath(ticket: string): string {
    // An issue key, or Jira's numeric issue id.
    if (!JIRA_ISSUE_KEY.test(ticket) && !/^\d{1,18}$/.test(ticket)) {
      throw new TrackerError(`not a Jira issue key: ${JSON.stringify(ticket)}`, this.platform, null, false);
    }
    return `rest/api/2/issue/${encodeURIComponent(ticket)}`;
  }
}

/**
 * A rich-text field as text. REST v2 (what this client calls, Cloud and Data Center alike)
 * answers wiki markup strings, kept as they are; v3 answers ADF documents, and a site or proxy
 * answering that shape here still gives readable text rather than `[object Object]`.
 */
function richText(value: string | object | null | undefined): string | null {
  if (typeof value === 'string') return value || null;
  if (isAdfDocument(value)) return adfToText(value) || null;
  return null;
}

/** Project-scoped; statuses OR-ed, labels AND-ed. */
export function buildJql(projectKey: string | null, query: ListTicketsQuery): string {
  const where: string[] = [];
  if (projectKey) where.push(`project = ${jqlString(projectKey)}`);
  if (query.statuses && query.statuses.length > 0) where.push(`status in (${query.statuses.map(jqlString).join(', ')})`);
  for (const label of query.labels ?? []) where.push(`labels = ${jqlString(label)}`);
  return `${where.join(' AND ')} ORDER BY key ASC`.trim();
}
