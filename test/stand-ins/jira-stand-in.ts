import type { IncomingHttpHeaders } from 'node:http';
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
 *   `isLast`). `flavour = 'cloud'` answers 410 Gone on the former (as Jira Cloud does since
 *   the CHANGE-2046 removal); `'datacenter'` answers 404 on the latter. The JQL understood is
 *   the subset the client emits: `project = "K"`, `status in (…)`, `labels = "x"`, AND-ed.
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
}

export class JiraStandIn extends StandInServer {
  readonly issues = new Map<string, JiraIssueState>();
  flavour: 'cloud' | 'datacenter' = 'cloud';
  /** Workflow: every status is reachable from every other by the transition `Move to <status>`. */
  statuses = ['To Do', 'Ready for Agent', 'In Progress', 'Done'];
  /** Data Center personal access token accepted as Bearer, when set. */
  pat: string | null = null;
  private nextCommentId = 10000;

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
    const issue: JiraIssueState = { key, summary, description, status, labels: [...labels], comments: [] };
    this.issues.set(key, issue);
    return issue;
  }

  /** A comment by someone (by default not the service's account). */
  addComment(key: string, body: string, name = 'ana'): string {
    const issue = this.issues.get(key);
    if (!issue) throw new Error(`no issue ${key}`);
    const id = String(this.nextCommentId++);
    issue.comments.push({ id, body, name });
    return id;
  }

  concurrentEdit(key: string, mutate: (issue: JiraIssueState) => void): void {
    const issue = this.issues.get(key);
    if (!issue) throw new Error(`no issue ${key}`);
    mutate(issue);
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
    if (s[0] !== 'rest' || s[1] !== 'api' || s[2] !== '2') return notFound({ errorMessages: ['Not found'] });
    if (s[3] === 'search' && req.method === 'POST') return this.search(req, s[4] === 'jql');
    if (s[3] !== 'issue' || !s[4]) return notFound({ errorMessages: ['Not found'] });
    const issue = this.issues.get(s[4]);
    if (!issue) return notFound({ errorMessages: ['Issue does not exist or you do not have permission to see it.'], errors: {} });
    if (s.length === 5 && req.method === 'GET') return json(200, this.render(issue, req.query.get('fields')));
    if (s.length === 5 && req.method === 'PUT') return this.edit(issue, req);
    if (s[5] === 'transitions') return this.transitions(issue, req);
    if (s[5] === 'comment') return this.comments(issue, req);
    return notFound({ errorMessages: ['Not found'] });
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
    issue.labels = labels;
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
    issue.status = chosen.to.name;
    return { status: 204 };
  }

  private comments(issue: JiraIssueState, req: RecordedRequest): StandInResponse {
    if (req.method === 'POST') {
      const body = (req.body as { body?: unknown } | undefined)?.body;
      if (typeof body !== 'string' || body.length === 0) return json(400, { errorMessages: [], errors: { comment: 'Comment body can not be empty!' } });
      const comment = { id: String(this.nextCommentId++), body, name: this.user };
      issue.comments.push(comment);
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
    const matching = this.match(body.jql);
    const maxResults = Math.min(100, Number(body.maxResults) || 50);
    const fields = Array.isArray(body.fields) ? body.fields.join(',') : null;
    const startAt = tokenApi ? Number(body.nextPageToken ?? 0) || 0 : Number(body.startAt ?? 0) || 0;
    const slice = matching.slice(startAt, startAt + maxResults).map((i) => this.render(i, fields));
    if (!tokenApi) return json(200, { startAt, maxResults, total: matching.length, issues: slice });
    const isLast = startAt + maxResults >= matching.length;
    return json(200, { issues: slice, isLast, ...(isLast ? {} : { nextPageToken: String(startAt + maxResults) }) });
  }

  private match(jql: string): JiraIssueState[] {
    const quoted = (text: string): string[] => [...text.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => (m[1] ?? '').replace(/\\(.)/g, '$1'));
    const project = /project\s*=\s*("(?:[^"\\]|\\.)*")/i.exec(jql)?.[1];
    const statusList = /status\s+in\s*\(([^)]*)\)/i.exec(jql)?.[1];
    const labels = [...jql.matchAll(/labels\s*=\s*("(?:[^"\\]|\\.)*")/gi)].flatMap((m) => quoted(m[1] ?? ''));
    const projectKey = project ? quoted(project)[0] : undefined;
    const statuses = statusList === undefined ? null : quoted(statusList).map((s) => s.toLowerCase());
    return [...this.issues.values()]
      .filter((i) => projectKey === undefined || i.key.startsWith(`${projectKey}-`))
      .filter((i) => statuses === null || statuses.includes(i.status.toLowerCase()))
      .filter((i) => labels.every((l) => i.labels.includes(l)))
      .sort((a, b) => a.key.localeCompare(b.key, undefined, { numeric: true }));
  }

  private render(issue: JiraIssueState, fields: string | null): Record<string, unknown> {
    const all: Record<string, unknown> = { status: { name: issue.status }, labels: [...issue.labels], summary: issue.summary, description: issue.description };
    const wanted = fields ? fields.split(',') : Object.keys(all);
    return { id: String(10000 + Number(issue.key.split('-')[1])), key: issue.key, fields: Object.fromEntries(wanted.filter((f) => f in all).map((f) => [f, all[f]])) };
  }
}

function renderComment(c: JiraIssueState['comments'][number]): Record<string, unknown> {
  return { id: c.id, body: c.body, author: { name: c.name, displayName: c.name } };
}
