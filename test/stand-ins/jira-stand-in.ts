import type { IncomingHttpHeaders } from 'node:http';
import { jiraDateTime, JqlError, parseJql, type StatusCategory } from './jira-jql.js';
import { StandInClock } from './stand-in-clock.js';
import { basicCredentials, json, notFound, StandInServer, type RecordedRequest, type StandInResponse } from './stand-in-server.js';

/**
 * Jira REST v2 stand-in (`/rest/api/2/…`). Semantics kept:
 * - Basic `user:api-token` (or `Bearer <PAT>` when `pat` is set, as on Data Center): 401 otherwise;
 * - `GET issue/{key}?fields=` answers only the requested fields;
 * - `PUT issue/{key}` applies `update.labels` verbs (`add`, `remove`, `set`) and `fields.labels`
 *   and answers 204; labels containing spaces are refused (400) as in Jira; no conditional;
 * - `GET issue/{key}/transitions` lists the workflow transitions available from the current
 *   status (`id`, `name`, `to.name`); `POST` with `{transition:{id}}` moves the issue (204), an
 *   unavailable id answers 400;
 * - comments: `POST` → 201 with a string id; `GET` paged by `startAt`/`maxResults` with `total`;
 * - search: `POST search` (offset paging, `total`) and `POST search/jql` (`nextPageToken`,
 *   `isLast`), at most 100 a page. `flavour = 'cloud'` answers 410 Gone on the former (as Jira
 *   Cloud does since the CHANGE-2046 removal); `'datacenter'` answers 404 on the latter. JQL is
 *   parsed for real (jira-jql.ts): project, key, status, statusCategory, labels, updated,
 *   created; =, !=, comparisons, [NOT] IN, AND/OR/NOT, parentheses; dates in `timeZone`;
 * - `updated` (and `created`) come from `clock`, which a test moves; `updated` moves on every
 *   change (labels, transition, comment), rendered as Jira does (`…T11:33:58.123+0530`, in the
 *   user's `timeZone`); `GET myself` answers that `timeZone`;
 * - a label or status change records a changelog history (`items` with `field`, `fromString`,
 *   `toString`; labels space-separated): `GET issue/{key}/changelog` pages them oldest first
 *   (`startAt`, `maxResults` ≤ 100, `total`, `isLast`) on Cloud and is a 404 on Data Center,
 *   where `GET issue/{key}?expand=changelog` answers every history.
 */

export interface JiraIssueState {
  key: string;
  summary: string;
  /**
   * What `fields.description` answers: wiki markup text on REST v2 (Cloud and Data Center), or
   * null when empty. Store an ADF document to play what v3 answers.
   */
  description: string | object | null;
  status: string;
  labels: string[];
  /** Wiki markup text, as REST v2 answers comment bodies. */
  comments: { id: string; body: string; name: string }[];
  /** Epoch ms, from the stand-in's clock. */
  created: number;
  updated: number;
  /** Changelog, oldest first. */
  histories: JiraHistory[];
}

export interface JiraHistory {
  id: string;
  /** Who made the change (a user name). */
  author: string;
  /** Epoch ms. */
  created: number;
  items: { field: string; fieldtype: 'jira'; from: string | null; fromString: string | null; to: string | null; toString: string | null }[];
}

/** Who changes an issue in the test helpers unless told (not the service's account). */
const PERSON = 'ana';

export class JiraStandIn extends StandInServer {
  readonly issues = new Map<string, JiraIssueState>();
  flavour: 'cloud' | 'datacenter' = 'cloud';
  /** Workflow: every status is reachable from every other by the transition `Move to <status>`. */
  statuses = ['To Do', 'Ready for Agent', 'In Progress', 'Done'];
  /** Issue types `POST issue` accepts by name. */
  issueTypes = ['Task', 'Story', 'Bug', 'Epic'];
  /** Data Center personal access token accepted as Bearer, when set. */
  pat: string | null = null;
  /** Statuses in the Done category (the others: the first is To Do, the rest In Progress). */
  doneStatuses = ['Done'];
  /** The API user's time zone: `GET myself` answers it, JQL dates are read and timestamps written in it. */
  timeZone = 'UTC';
  /** Stamps `created`, `updated` and histories; a test moves it. */
  readonly clock = new StandInClock();
  private nextCommentId = 10000;
  private nextHistoryId = 20000;

  constructor(
    readonly user: string,
    readonly apiToken: string,
  ) {
    super();
  }

  get siteUrl(): string {
    return this.url;
  }

  addIssue(key: string, status: string, labels: string[] = [], summary = `Issue ${key}`, description: string | object | null = null): JiraIssueState {
    const now = this.clock.now().getTime();
    const issue: JiraIssueState = { key, summary, description, status, labels: [...labels], comments: [], created: now, updated: now, histories: [] };
    this.issues.set(key, issue);
    return issue;
  }

  /** Someone moves the issue to `status` (any of `statuses`), as through the workflow. */
  transitionIssue(key: string, status: string, by = PERSON): void {
    if (!this.statuses.includes(status)) throw new Error(`${status} is not a status of the workflow`);
    this.concurrentEdit(key, (issue) => (issue.status = status), by);
  }

  /** Someone adds and removes labels on the issue. */
  editLabels(key: string, change: { add?: string[]; remove?: string[] }, by = PERSON): void {
    this.concurrentEdit(key, (issue) => {
      issue.labels = issue.labels.filter((l) => !(change.remove ?? []).includes(l));
      for (const label of change.add ?? []) if (!issue.labels.includes(label)) issue.labels.push(label);
    }, by);
  }

  /** A comment by someone (by default not the service's account). */
  addComment(key: string, body: string, name = 'ana'): string {
    const issue = this.issues.get(key);
    if (!issue) throw new Error(`no issue ${key}`);
    const id = String(this.nextCommentId++);
    issue.comments.push({ id, body, name });
    this.touch(issue);
    return id;
  }

  /** Someone else edits the issue: `updated` moves, a status or label change is recorded in the changelog. */
  concurrentEdit(key: string, mutate: (issue: JiraIssueState) => void, by = PERSON): void {
    const issue = this.issues.get(key);
    if (!issue) throw new Error(`no issue ${key}`);
    const before = { status: issue.status, labels: [...issue.labels] };
    mutate(issue);
    this.changed(issue, before, by);
  }

  statusCategoryOf(status: string): StatusCategory {
    if (this.doneStatuses.includes(status)) return 'Done';
    return status === this.statuses[0] ? 'To Do' : 'In Progress';
  }

  /** `updated` moves forward, even for two changes within one millisecond. */
  private touch(issue: JiraIssueState): number {
    issue.updated = Math.max(this.clock.now().getTime(), issue.updated + 1);
    return issue.updated;
  }

  /** `updated` moves; a history lists the status and label changes since `before`. */
  private changed(issue: JiraIssueState, before: { status: string; labels: string[] }, by: string): void {
    const now = this.touch(issue);
    const items: JiraHistory['items'] = [];
    if (before.status !== issue.status) {
      const id = (s: string): string => String(10000 + this.statuses.indexOf(s));
      items.push({ field: 'status', fieldtype: 'jira', from: id(before.status), fromString: before.status, to: id(issue.status), toString: issue.status });
    }
    if (before.labels.join(' ') !== issue.labels.join(' ')) {
      items.push({ field: 'labels', fieldtype: 'jira', from: null, fromString: before.labels.join(' '), to: null, toString: issue.labels.join(' ') });
    }
    if (items.length > 0) issue.histories.push({ id: String(this.nextHistoryId++), author: by, created: now, items });
  }

  transitionId(status: string): string {
    return String(11 + this.statuses.indexOf(status));
  }

  protected authorized(headers: IncomingHttpHeaders): boolean {
    const bearer = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? '')?.[1];
    if (this.pat !== null && bearer === this.pat) return true;
    const creds = basicCredentials(headers.authorization);
    return creds?.[0] === this.user && creds[1] === this.apiToken;
  }

  protected unauthorizedBody(): unknown {
    return { errorMessages: ['You are not authenticated. Authentication required to perform this operation.'], errors: {} };
  }

  protected route(req: RecordedRequest, s: string[]): StandInResponse {
    // REST v3 (Cloud only): issue creation with an ADF description.
    if (s[0] === 'rest' && s[1] === 'api' && s[2] === '3' && this.flavour === 'cloud' && s[3] === 'issue' && s.length === 4 && req.method === 'POST') return this.create(req, 3);
    if (s[0] !== 'rest' || s[1] !== 'api' || s[2] !== '2') return notFound({ errorMessages: ['Not found'] });
    if (s[3] === 'issue' && s.length === 4 && req.method === 'POST') return this.create(req, 2);
    if (s[3] === 'search' && req.method === 'POST') return this.search(req, s[4] === 'jql');
    if (s[3] === 'myself' && s.length === 4 && req.method === 'GET') return this.myself();
    if (s[3] !== 'issue' || !s[4]) return notFound({ errorMessages: ['Not found'] });
    const issue = this.issues.get(s[4]);
    if (!issue) return notFound({ errorMessages: ['Issue does not exist or you do not have permission to see it.'], errors: {} });
    if (s.length === 5 && req.method === 'GET') return json(200, this.renderWithChangelog(issue, req.query));
    if (s.length === 6 && s[5] === 'changelog' && req.method === 'GET') return this.changelog(issue, req);
    if (s.length === 5 && req.method === 'PUT') return this.edit(issue, req);
    if (s[5] === 'transitions') return this.transitions(issue, req);
    if (s[5] === 'comment') return this.comments(issue, req);
    return notFound({ errorMessages: ['Not found'] });
  }

  /**
   * `POST /rest/api/{2|3}/issue` with `fields`: `project.key` (its issues are `<KEY>-<n>`),
   * `summary` (required), `issuetype.name` (one of `issueTypes`), `labels` (no spaces) and
   * `description` (v2: wiki markup text; v3: an ADF document, kept as sent) → 201
   * `{id, key, self}`; the issue starts in the first of `statuses`. Errors as Jira answers
   * them: 400 `{errorMessages, errors: {field: message}}`.
   */
  private create(req: RecordedRequest, version: 2 | 3): StandInResponse {
    const fields = ((req.body ?? {}) as { fields?: Record<string, unknown> }).fields ?? {};
    const errors: Record<string, string> = {};
    const project = (fields['project'] as { key?: unknown } | undefined)?.key;
    if (typeof project !== 'string' || !/^[A-Z][A-Z0-9_]*$/.test(project)) errors['project'] = 'Specify a valid project ID or key';
    const summary = fields['summary'];
    if (typeof summary !== 'string' || summary.trim() === '') errors['summary'] = 'You must specify a summary of the issue.';
    const type = (fields['issuetype'] as { name?: unknown } | undefined)?.name;
    if (typeof type !== 'string' || !this.issueTypes.includes(type)) errors['issuetype'] = 'Specify an issue type';
    const labels = Array.isArray(fields['labels']) ? fields['labels'].map(String) : [];
    if (labels.some((l) => /\s/.test(l))) errors['labels'] = 'The label must not contain spaces.';
    const description = fields['description'] ?? null;
    if (version === 3 && description !== null && (typeof description !== 'object' || (description as { type?: unknown }).type !== 'doc')) {
      errors['description'] = 'Operation value must be an Atlassian Document (see the Atlassian Document Format)';
    }
    if (version === 2 && description !== null && typeof description !== 'string') errors['description'] = 'Operation value must be a string';
    if (Object.keys(errors).length > 0) return json(400, { errorMessages: [], errors });
    const numbers = [...this.issues.keys()].filter((k) => k.startsWith(`${project as string}-`)).map((k) => Number(k.split('-').pop()));
    const key = `${project as string}-${Math.max(0, ...numbers) + 1}`;
    this.addIssue(key, this.statuses[0] ?? 'To Do', [...new Set(labels)], summary as string, description as string | object | null);
    const id = String(30000 + this.issues.size);
    return json(201, { id, key, self: `${this.url}/rest/api/${version}/issue/${id}` });
  }

  private edit(issue: JiraIssueState, req: RecordedRequest): StandInResponse {
    const body = (req.body ?? {}) as { update?: { labels?: Record<string, unknown>[] }; fields?: { labels?: unknown } };
    let labels = [...issue.labels];
    if (Array.isArray(body.fields?.labels)) labels = body.fields.labels.map(String);
    for (const verb of body.update?.labels ?? []) {
      if (typeof verb['add'] === 'string' && !labels.includes(verb['add'])) labels.push(verb['add']);
      if (typeof verb['remove'] === 'string') labels = labels.filter((l) => l !== verb['remove']);
      if (Array.isArray(verb['set'])) labels = verb['set'].map(String);
    }
    if (labels.some((l) => /\s/.test(l))) return json(400, { errorMessages: [], errors: { labels: 'The label must not contain spaces.' } });
    const before = { status: issue.status, labels: [...issue.labels] };
    issue.labels = labels;
    this.changed(issue, before, this.user);
    return { status: 204 };
  }

  private transitions(issue: JiraIssueState, req: RecordedRequest): StandInResponse {
    const available = this.statuses
      .filter((s) => s !== issue.status)
      .map((s) => ({ id: this.transitionId(s), name: `Move to ${s}`, to: { id: String(100 + this.statuses.indexOf(s)), name: s }, isAvailable: true }));
    if (req.method === 'GET') return json(200, { expand: 'transitions', transitions: available });
    if (req.method !== 'POST') return notFound();
    const id = (req.body as { transition?: { id?: unknown } } | undefined)?.transition?.id;
    const chosen = available.find((t) => t.id === String(id));
    if (!chosen) return json(400, { errorMessages: [`Transition id '${String(id)}' is not valid for this issue.`], errors: {} });
    const before = { status: issue.status, labels: [...issue.labels] };
    issue.status = chosen.to.name;
    this.changed(issue, before, this.user);
    return { status: 204 };
  }

  private comments(issue: JiraIssueState, req: RecordedRequest): StandInResponse {
    if (req.method === 'POST') {
      const body = (req.body as { body?: unknown } | undefined)?.body;
      if (typeof body !== 'string' || body.length === 0) return json(400, { errorMessages: [], errors: { comment: 'Comment body can not be empty!' } });
      const comment = { id: String(this.nextCommentId++), body, name: this.user };
      issue.comments.push(comment);
      this.touch(issue);
      return json(201, renderComment(comment));
    }
    if (req.method !== 'GET') return notFound();
    const startAt = Math.max(0, Number(req.query.get('startAt') ?? 0) || 0);
    const maxResults = Math.min(100, Number(req.query.get('maxResults')) || 50);
    // `orderBy=created` (or `+created`) is the default order; `-created` reverses it.
    const ordered = req.query.get('orderBy') === '-created' ? [...issue.comments].reverse() : issue.comments;
    const slice = ordered.slice(startAt, startAt + maxResults);
    return json(200, { startAt, maxResults, total: issue.comments.length, comments: slice.map(renderComment) });
  }

  private search(req: RecordedRequest, tokenApi: boolean): StandInResponse {
    if (!tokenApi && this.flavour === 'cloud') {
      return json(410, { errorMessages: ['The requested API has been removed. Please migrate to the /rest/api/3/search/jql API.'], errors: {} });
    }
    if (tokenApi && this.flavour === 'datacenter') return notFound({ errorMessages: ['null for uri: /rest/api/2/search/jql'] });
    const body = (req.body ?? {}) as { jql?: unknown; startAt?: unknown; maxResults?: unknown; nextPageToken?: unknown; fields?: unknown };
    if (typeof body.jql !== 'string') return json(400, { errorMessages: ['jql is required'], errors: {} });
    let matching: JiraIssueState[];
    try {
      matching = this.match(body.jql);
    } catch (err) {
      if (err instanceof JqlError) return json(400, { errorMessages: [err.message], warningMessages: [] });
      throw err;
    }
    const maxResults = Math.min(100, Number(body.maxResults) || 50);
    const fields = Array.isArray(body.fields) ? body.fields.join(',') : null;
    const startAt = tokenApi ? Number(body.nextPageToken ?? 0) || 0 : Number(body.startAt ?? 0) || 0;
    const slice = matching.slice(startAt, startAt + maxResults).map((i) => this.render(i, fields));
    if (!tokenApi) return json(200, { startAt, maxResults, total: matching.length, issues: slice });
    const isLast = startAt + maxResults >= matching.length;
    return json(200, { issues: slice, isLast, ...(isLast ? {} : { nextPageToken: String(startAt + maxResults) }) });
  }

  private match(jql: string): JiraIssueState[] {
    const query = parseJql(jql, this.timeZone);
    const order = query.orderBy.length > 0 ? query.orderBy : [{ field: 'key' as const, desc: false }];
    const compare = (a: JiraIssueState, b: JiraIssueState): number => {
      for (const { field, desc } of order) {
        const diff = field === 'key' ? a.key.localeCompare(b.key, undefined, { numeric: true }) : a[field] - b[field];
        if (diff !== 0) return desc ? -diff : diff;
      }
      return 0;
    };
    return [...this.issues.values()]
      .filter((i) => query.where({ key: i.key, status: i.status, statusCategory: this.statusCategoryOf(i.status), labels: i.labels, updated: i.updated, created: i.created }))
      .sort(compare);
  }

  private myself(): StandInResponse {
    return json(200, { self: `${this.url}/rest/api/2/user?username=${encodeURIComponent(this.user)}`, name: this.user, key: this.user, emailAddress: this.user, displayName: this.user, active: true, timeZone: this.timeZone, locale: 'en_US' });
  }

  /** Cloud only; the paged changelog resource does not exist on Data Center. */
  private changelog(issue: JiraIssueState, req: RecordedRequest): StandInResponse {
    if (this.flavour === 'datacenter') return notFound({ errorMessages: [`null for uri: ${this.url}${req.path}`] });
    const startAt = Math.max(0, Number(req.query.get('startAt') ?? 0) || 0);
    const maxResults = Math.min(100, Number(req.query.get('maxResults')) || 100);
    const values = issue.histories.slice(startAt, startAt + maxResults).map((h) => this.renderHistory(h));
    return json(200, { self: `${this.url}${req.path}`, maxResults, startAt, total: issue.histories.length, isLast: startAt + maxResults >= issue.histories.length, values });
  }

  private renderWithChangelog(issue: JiraIssueState, query: URLSearchParams): Record<string, unknown> {
    const rendered = this.render(issue, query.get('fields'));
    if (!(query.get('expand') ?? '').split(',').includes('changelog')) return rendered;
    const histories = issue.histories.map((h) => this.renderHistory(h));
    return { ...rendered, changelog: { startAt: 0, maxResults: histories.length, total: histories.length, histories } };
  }

  private renderHistory(h: JiraHistory): Record<string, unknown> {
    return { id: h.id, author: { name: h.author, displayName: h.author }, created: jiraDateTime(h.created, this.timeZone), items: h.items };
  }

  private render(issue: JiraIssueState, fields: string | null): Record<string, unknown> {
    const all: Record<string, unknown> = {
      status: { name: issue.status, statusCategory: { name: this.statusCategoryOf(issue.status) } },
      labels: [...issue.labels],
      summary: issue.summary,
      description: issue.description,
      created: jiraDateTime(issue.created, this.timeZone),
      updated: jiraDateTime(issue.updated, this.timeZone),
    };
    const wanted = fields ? fields.split(',') : Object.keys(all);
    return { id: String(10000 + Number(issue.key.split('-')[1])), key: issue.key, fields: Object.fromEntries(wanted.filter((f) => f in all).map((f) => [f, all[f]])) };
  }
}

function renderComment(c: JiraIssueState['comments'][number]): Record<string, unknown> {
  return { id: c.id, body: c.body, author: { name: c.name, displayName: c.name } };
}
