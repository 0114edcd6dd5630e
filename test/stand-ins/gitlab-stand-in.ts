import type { IncomingHttpHeaders } from 'node:http';
import { CodeHostStandIn } from './code-host-stand-in.js';
import { GitLabMergeRequests, type GitLabMergeRequestState } from './gitlab-merge-requests.js';
import type { PullRequestSetup } from './pull-request-code.js';
import { intParam, json, notFound, pageOf, type RecordedRequest, type StandInResponse } from './stand-in-server.js';

/**
 * GitLab REST v4 stand-in for one project, under `/api/v4`: its issues, `GET /projects/:id`
 * (with `default_branch`) and its merge requests (gitlab-merge-requests.ts). Semantics kept:
 * - the project is addressed by its URL-encoded full path (`group%2Fproject`) or numeric id;
 * - `PUT /projects/:id/issues/:iid` takes `add_labels` / `remove_labels` (comma-separated, or
 *   arrays) and `labels` (replace all); removing an absent label is not an error; there is no
 *   conditional update;
 * - a label change adds a system note (`system: true`) like GitLab's "added ~x label";
 * - notes and issue lists are offset-paginated (`per_page`, `page`) with `X-Next-Page`,
 *   `X-Page`, `X-Total`; `labels=` filters as AND, `state=opened|closed|all`;
 * - `PRIVATE-TOKEN: <token>` (or `Authorization: Bearer`) is required: 401 `{message}` otherwise;
 * - `GET /api/v4/user` answers the token's account (`username`).
 */

export interface GitLabIssueState {
  iid: number;
  title: string;
  /** Markdown; GitLab answers `description: null` (or '') for an issue without one. */
  description: string | null;
  state: 'opened' | 'closed';
  labels: string[];
  notes: { id: number; body: string; username: string; system: boolean }[];
}

export class GitLabStandIn extends CodeHostStandIn {
  readonly issues = new Map<number, GitLabIssueState>();
  readonly mergeRequests = new GitLabMergeRequests(this);
  private nextNoteId = 500;

  constructor(
    readonly token: string,
    readonly projectPath = 'fin/billing',
    readonly projectId = 77,
    readonly username = 'pipeline-bot',
  ) {
    super();
  }

  /** Base to configure as `api_url`. */
  get apiUrl(): string {
    return `${this.url}/api/v4`;
  }

  /** The project's web page, as `web_url`s spell it (nothing serves it here). */
  get webUrl(): string {
    return `https://gitlab.example/${this.projectPath}`;
  }

  addIssue(iid: number, labels: string[] = [], state: 'opened' | 'closed' = 'opened', title = `Issue ${iid}`, description: string | null = null): GitLabIssueState {
    const issue: GitLabIssueState = { iid, title, description, state, labels: [...labels], notes: [] };
    this.issues.set(iid, issue);
    return issue;
  }

  /** A note by someone (by default not the service's account); `system: true` plays GitLab's own activity notes. */
  addNote(iid: number, body: string, opts: { username?: string; system?: boolean } = {}): number {
    const issue = this.issues.get(iid);
    if (!issue) throw new Error(`no issue ${iid}`);
    const id = this.nextNoteId++;
    issue.notes.push({ id, body, username: opts.username ?? 'gitlab-user', system: opts.system ?? false });
    return id;
  }

  /**
   * A merge request the test sets up, with code: the mounted repository's branches, a fork's
   * branch (fetched to `refs/merge-requests/N/head`), or files. Answers its iid.
   */
  openPullRequest(setup: PullRequestSetup): number {
    return this.mergeRequests.open(setup).iid;
  }

  /** A note on a merge request by someone (by default not the service's account). */
  addMergeRequestNote(iid: number, body: string, opts: { username?: string; system?: boolean } = {}): number {
    return this.mergeRequests.reviews.addNote(this.mergeRequests.get(iid), body, opts);
  }

  get pullRequests(): GitLabMergeRequestState[] {
    return [...this.mergeRequests.all.values()];
  }

  pullRequest(iid: number): GitLabMergeRequestState {
    return this.mergeRequests.get(iid);
  }

  mergePullRequest(iid: number): void {
    this.mergeRequests.get(iid).state = 'merged';
  }

  closePullRequest(iid: number): void {
    this.mergeRequests.get(iid).state = 'closed';
  }

  /** GitLab's transitional state while a merge is in progress. */
  lockMergeRequest(iid: number): void {
    this.mergeRequests.get(iid).state = 'locked';
  }

  concurrentEdit(iid: number, mutate: (issue: GitLabIssueState) => void): void {
    const issue = this.issues.get(iid);
    if (!issue) throw new Error(`no issue ${iid}`);
    mutate(issue);
  }

  protected authorized(headers: IncomingHttpHeaders): boolean {
    const bearer = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? '')?.[1];
    return headers['private-token'] === this.token || bearer === this.token;
  }

  protected unauthorizedBody(): unknown {
    return { message: '401 Unauthorized' };
  }

  protected serve(req: RecordedRequest, s: string[]): StandInResponse {
    if (s[0] === 'api' && s[1] === 'v4' && s[2] === 'user' && s.length === 3 && req.method === 'GET') return json(200, { id: 4242, username: this.username });
    if (s[0] !== 'api' || s[1] !== 'v4' || s[2] !== 'projects') return notFound({ error: '404 Not Found' });
    if (s[3] !== this.projectPath && s[3] !== String(this.projectId)) return notFound({ message: '404 Project Not Found' });
    if (s.length === 4 && req.method === 'GET') return json(200, this.renderProject());
    if (s[4] === 'merge_requests') return this.mergeRequests.route(req, s.slice(5));
    if (s[4] !== 'issues') return notFound({ error: '404 Not Found' });
    if (s.length === 5 && req.method === 'GET') return this.list(req);
    const issue = this.issues.get(Number(s[5]));
    if (!issue) return notFound({ message: '404 Not found' });
    if (s.length === 6 && req.method === 'GET') return json(200, this.render(issue));
    if (s.length === 6 && req.method === 'PUT') return this.update(issue, req);
    if (s.length === 7 && s[6] === 'notes') return this.notes(issue, req);
    return notFound({ error: '404 Not Found' });
  }

  private update(issue: GitLabIssueState, req: RecordedRequest): StandInResponse {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const before = [...issue.labels];
    if (body['labels'] !== undefined) issue.labels = splitLabels(body['labels']);
    const add = splitLabels(body['add_labels']);
    const remove = splitLabels(body['remove_labels']).map((l) => l.toLowerCase());
    for (const label of add) if (!issue.labels.some((l) => l.toLowerCase() === label.toLowerCase())) issue.labels.push(label);
    issue.labels = issue.labels.filter((l) => !remove.includes(l.toLowerCase()));
    if (typeof body['title'] === 'string') issue.title = body['title'];
    if (typeof body['description'] === 'string') issue.description = body['description'];
    if (body['state_event'] === 'close') issue.state = 'closed';
    if (body['state_event'] === 'reopen') issue.state = 'opened';
    const added = issue.labels.filter((l) => !before.includes(l));
    const removed = before.filter((l) => !issue.labels.includes(l));
    if (added.length > 0 || removed.length > 0) {
      const parts = [added.length ? `added ${added.map((l) => `~"${l}"`).join(' ')}` : '', removed.length ? `removed ${removed.map((l) => `~"${l}"`).join(' ')}` : ''];
      issue.notes.push({ id: this.nextNoteId++, body: `${parts.filter(Boolean).join(' and ')} label${added.length + removed.length > 1 ? 's' : ''}`, username: this.username, system: true });
    }
    return json(200, this.render(issue));
  }

  private notes(issue: GitLabIssueState, req: RecordedRequest): StandInResponse {
    if (req.method === 'POST') {
      const body = req.body as { body?: string } | undefined;
      if (typeof body?.body !== 'string' || body.body.length === 0) return json(400, { message: { body: ["can't be blank"] } });
      const note = { id: this.nextNoteId++, body: body.body, username: this.username, system: false };
      issue.notes.push(note);
      return json(201, this.renderNote(note));
    }
    if (req.method !== 'GET') return notFound();
    const ordered = req.query.get('sort') === 'asc' ? [...issue.notes] : [...issue.notes].reverse();
    return this.paged(req, ordered.map((n) => this.renderNote(n)));
  }

  private list(req: RecordedRequest): StandInResponse {
    const state = req.query.get('state') ?? 'all';
    const wanted = (req.query.get('labels') ?? '').split(',').filter(Boolean).map((l) => l.toLowerCase());
    const matching = [...this.issues.values()]
      .filter((i) => state === 'all' || i.state === state)
      .filter((i) => wanted.every((w) => i.labels.some((l) => l.toLowerCase() === w)))
      .sort((a, b) => b.iid - a.iid) // GitLab default: created_at desc
      .map((i) => this.render(i));
    return this.paged(req, matching);
  }

  /** Offset pages with `X-Next-Page`, `X-Page`, `X-Total`. */
  paged(req: RecordedRequest, items: unknown[]): StandInResponse {
    const perPage = Math.min(100, intParam(req.query, 'per_page', 20));
    const page = intParam(req.query, 'page', 1);
    const { items: slice, hasNext } = pageOf(items, page, perPage);
    return json(200, slice, { 'x-page': String(page), 'x-per-page': String(perPage), 'x-total': String(items.length), 'x-next-page': hasNext ? String(page + 1) : '' });
  }

  private renderProject(): Record<string, unknown> {
    return {
      id: this.projectId,
      name: this.projectPath.split('/').at(-1),
      path_with_namespace: this.projectPath,
      default_branch: this.defaultBranch,
      web_url: this.webUrl,
    };
  }

  private render(issue: GitLabIssueState): Record<string, unknown> {
    return {
      id: 9000 + issue.iid,
      iid: issue.iid,
      project_id: this.projectId,
      title: issue.title,
      description: issue.description,
      state: issue.state,
      labels: [...issue.labels],
      user_notes_count: issue.notes.filter((n) => !n.system).length,
      web_url: `${this.webUrl}/-/issues/${issue.iid}`,
    };
  }

  private renderNote(note: GitLabIssueState['notes'][number]): Record<string, unknown> {
    return { id: note.id, body: note.body, system: note.system, noteable_type: 'Issue', author: { username: note.username } };
  }
}

function splitLabels(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string').map((v) => v.trim()).filter(Boolean);
  if (typeof value === 'string') return value.split(',').map((v) => v.trim()).filter(Boolean);
  return [];
}
