import type { IncomingHttpHeaders } from 'node:http';
import { CodeHostStandIn } from './code-host-stand-in.js';
import { GitLabMembers } from './gitlab-members.js';
import { byTime, labelChanges, updatedSinceParam } from './issue-history.js';
import { StandInClock } from './stand-in-clock.js';
import type { GitLabReviewState } from './gitlab-merge-request-reviewers.js';
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
 * - a label change adds a system note (`system: true`) like GitLab's "added ~x label" and
 *   resource label events (`GET …/issues/:iid/resource_label_events`, `action: add|remove`),
 *   through the API and the helpers alike; `updated_at` moves on every change (labels, state,
 *   notes, edits), in milliseconds of `clock`;
 * - notes, issue lists and label events are offset-paginated (`per_page`, `page`) with
 *   `X-Next-Page`, `X-Page`, `X-Total`, `X-Total-Pages` (the last two omitted past 10,000, as
 *   GitLab does); the issue list takes `labels=` (AND), `state=opened|closed|all`,
 *   `updated_after` (on or after; 400 when unparsable), `order_by=created_at|updated_at` and
 *   `sort=asc|desc` (default created_at, desc);
 * - `PRIVATE-TOKEN: <token>` (or `Authorization: Bearer`) is required: 401 `{message}` otherwise;
 * - `GET /api/v4/user` answers the token's account (`username`);
 * - users, groups and membership (`GET /users?username=`, `GET /projects/:id/members/all/:user_id`,
 *   roles inherited from the project's groups): gitlab-members.ts.
 */

export interface GitLabIssueState {
  iid: number;
  title: string;
  /** Markdown; GitLab answers `description: null` (or '') for an issue without one. */
  description: string | null;
  state: 'opened' | 'closed';
  labels: string[];
  notes: { id: number; body: string; username: string; system: boolean }[];
  /** ISO 8601 with milliseconds, like GitLab's; `updatedAt` moves on every change (`setTimes` sets both). */
  createdAt: string;
  updatedAt: string;
  /** Resource label events, oldest first. Assigning `labels` directly records none: use the helpers. */
  labelEvents: GitLabLabelEvent[];
}

export interface GitLabLabelEvent {
  id: number;
  label: string;
  action: 'add' | 'remove';
  username: string;
  createdAt: string;
}

export class GitLabStandIn extends CodeHostStandIn {
  readonly issues = new Map<number, GitLabIssueState>();
  readonly mergeRequests = new GitLabMergeRequests(this);
  readonly members = new GitLabMembers(this);
  /** Issue times and label events; real time unless a test moves it. */
  readonly clock = new StandInClock();
  private nextNoteId = 500;
  private nextLabelEventId = 140;

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
    const at = this.clock.now().toISOString();
    const issue: GitLabIssueState = { iid, title, description, state, labels: [...labels], notes: [], createdAt: at, updatedAt: at, labelEvents: [] };
    // Labels given at creation are label events at creation, as on GitLab.
    for (const label of issue.labels) this.labelEvent(issue, label, 'add', 'gitlab-user', at);
    this.issues.set(iid, issue);
    return issue;
  }

  /** A note by someone (by default not the service's account); `system: true` plays GitLab's own activity notes. */
  addNote(iid: number, body: string, opts: { username?: string; system?: boolean } = {}): number {
    const id = this.nextNoteId++;
    const username = opts.username ?? 'gitlab-user';
    this.change(this.mustGet(iid), username, (issue) => void issue.notes.push({ id, body, username, system: opts.system ?? false }));
    return id;
  }

  /** Someone adds a label now: a label event and system note, `updated_at` moves. */
  addLabel(iid: number, label: string, username = 'gitlab-user'): void {
    this.change(this.mustGet(iid), username, (issue) => void (issue.labels.some((l) => l.toLowerCase() === label.toLowerCase()) || issue.labels.push(label)));
  }

  /** Someone removes a label now: a label event and system note, `updated_at` moves. */
  removeLabel(iid: number, label: string, username = 'gitlab-user'): void {
    this.change(this.mustGet(iid), username, (issue) => void (issue.labels = issue.labels.filter((l) => l.toLowerCase() !== label.toLowerCase())));
  }

  closeIssue(iid: number, username = 'gitlab-user'): void {
    this.change(this.mustGet(iid), username, (issue) => void (issue.state = 'closed'));
  }

  reopenIssue(iid: number, username = 'gitlab-user'): void {
    this.change(this.mustGet(iid), username, (issue) => void (issue.state = 'opened'));
  }

  /** The issue's times, as if it was created or last changed then (no event is recorded). */
  setTimes(iid: number, times: { createdAt?: Date | string; updatedAt?: Date | string }): void {
    const issue = this.mustGet(iid);
    if (times.createdAt !== undefined) issue.createdAt = new Date(times.createdAt).toISOString();
    if (times.updatedAt !== undefined) issue.updatedAt = new Date(times.updatedAt).toISOString();
  }

  /**
   * A merge request the test sets up, with code: the mounted repository's branches, a fork's
   * branch (fetched to `refs/merge-requests/N/head`), or files. Answers its iid.
   */
  openPullRequest(setup: PullRequestSetup): number {
    return this.mergeRequests.open(setup).iid;
  }

  /** A note on a merge request by someone (by default not the service's account). */
  addMergeRequestNote(iid: number, body: string, opts: { username?: string; system?: boolean; createdAt?: string } = {}): number {
    return this.mergeRequests.reviews.addNote(this.mergeRequests.get(iid), body, opts);
  }

  /** A resolvable thread on a merge request (on a file's line with `path`); answers the discussion id. */
  startThread(iid: number, body: string, opts: { username?: string; createdAt?: string; path?: string; line?: number } = {}): string {
    return this.mergeRequests.reviews.startThread(this.mergeRequests.get(iid), body, opts);
  }

  replyInThread(iid: number, discussion: string, body: string, opts: { username?: string; createdAt?: string } = {}): number {
    return this.mergeRequests.reviews.reply(this.mergeRequests.get(iid), discussion, body, opts);
  }

  resolveThread(iid: number, discussion: string, resolved = true): void {
    this.mergeRequests.reviews.resolve(this.mergeRequests.get(iid), discussion, resolved);
  }

  addReviewer(iid: number, username: string): void {
    this.mergeRequests.reviewers.add(this.mergeRequests.get(iid), username);
  }

  /** A review act by `username` (Request changes, Approve, …) with GitLab's system note; answers the note's id. */
  reviewAct(iid: number, username: string, state: GitLabReviewState, createdAt?: string): number | null {
    return this.mergeRequests.reviewers.act(this.mergeRequests.get(iid), username, state, createdAt);
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

  /** Someone else edits the issue now (label changes are events and a system note; `updated_at` moves). */
  concurrentEdit(iid: number, mutate: (issue: GitLabIssueState) => void, username = 'gitlab-user'): void {
    this.change(this.mustGet(iid), username, mutate);
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
    if (s[0] === 'api' && s[1] === 'v4' && s[2] === 'users' && s.length === 3 && req.method === 'GET') return this.members.listUsers(req);
    if (s[0] !== 'api' || s[1] !== 'v4' || s[2] !== 'projects') return notFound({ error: '404 Not Found' });
    if (s[3] !== this.projectPath && s[3] !== String(this.projectId)) return notFound({ message: '404 Project Not Found' });
    if (s.length === 4 && req.method === 'GET') return json(200, this.renderProject());
    if (s[4] === 'merge_requests') return this.mergeRequests.route(req, s.slice(5));
    if (s[4] === 'members' && s[5] === 'all' && s.length === 7 && req.method === 'GET') return this.members.memberOfProject(s[6] ?? '');
    if (s[4] !== 'issues') return notFound({ error: '404 Not Found' });
    if (s.length === 5 && req.method === 'GET') return this.list(req);
    if (s.length === 5 && req.method === 'POST') return this.createIssue(req);
    const issue = this.issues.get(Number(s[5]));
    if (!issue) return notFound({ message: '404 Not found' });
    if (s.length === 6 && req.method === 'GET') return json(200, this.render(issue));
    if (s.length === 6 && req.method === 'PUT') return this.update(issue, req);
    if (s.length === 7 && s[6] === 'notes') return this.notes(issue, req);
    if (s.length === 7 && s[6] === 'resource_label_events' && req.method === 'GET') return this.paged(req, issue.labelEvents.map((e) => this.renderLabelEvent(issue, e)));
    return notFound({ error: '404 Not Found' });
  }

  /**
   * `POST /projects/:id/issues`: `title` required (Grape's 400 `{"error":"title is missing"}`),
   * `description`, `labels` (comma-separated, or an array) → 201 with the issue at the next iid.
   */
  private createIssue(req: RecordedRequest): StandInResponse {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (typeof body['title'] !== 'string' || body['title'].trim() === '') return json(400, { error: 'title is missing' });
    const iid = Math.max(0, ...this.issues.keys()) + 1;
    const description = typeof body['description'] === 'string' && body['description'] !== '' ? body['description'] : null;
    const issue = this.addIssue(iid, [...new Set(splitLabels(body['labels']))], 'opened', body['title'], description);
    for (const event of issue.labelEvents) event.username = this.username;
    return json(201, this.render(issue));
  }

  private update(issue: GitLabIssueState, req: RecordedRequest): StandInResponse {
    const body = (req.body ?? {}) as Record<string, unknown>;
    this.change(issue, this.username, (i) => {
      if (body['labels'] !== undefined) i.labels = splitLabels(body['labels']);
      const add = splitLabels(body['add_labels']);
      const remove = splitLabels(body['remove_labels']).map((l) => l.toLowerCase());
      for (const label of add) if (!i.labels.some((l) => l.toLowerCase() === label.toLowerCase())) i.labels.push(label);
      i.labels = i.labels.filter((l) => !remove.includes(l.toLowerCase()));
      if (typeof body['title'] === 'string') i.title = body['title'];
      if (typeof body['description'] === 'string') i.description = body['description'];
      if (body['state_event'] === 'close') i.state = 'closed';
      if (body['state_event'] === 'reopen') i.state = 'opened';
    });
    return json(200, this.render(issue));
  }

  /** Applies a change `username` makes now: label events and GitLab's system note, `updated_at`. */
  private change(issue: GitLabIssueState, username: string, mutate: (issue: GitLabIssueState) => void): void {
    const before = [...issue.labels];
    mutate(issue);
    const at = this.clock.now().toISOString();
    const { added, removed } = labelChanges(before, issue.labels);
    for (const label of added) this.labelEvent(issue, label, 'add', username, at);
    for (const label of removed) this.labelEvent(issue, label, 'remove', username, at);
    if (added.length > 0 || removed.length > 0) {
      const parts = [added.length ? `added ${added.map((l) => `~"${l}"`).join(' ')}` : '', removed.length ? `removed ${removed.map((l) => `~"${l}"`).join(' ')}` : ''];
      issue.notes.push({ id: this.nextNoteId++, body: `${parts.filter(Boolean).join(' and ')} label${added.length + removed.length > 1 ? 's' : ''}`, username, system: true });
    }
    issue.updatedAt = at;
  }

  private labelEvent(issue: GitLabIssueState, label: string, action: 'add' | 'remove', username: string, createdAt: string): void {
    issue.labelEvents.push({ id: this.nextLabelEventId++, label, action, username, createdAt });
  }

  private notes(issue: GitLabIssueState, req: RecordedRequest): StandInResponse {
    if (req.method === 'POST') {
      const body = req.body as { body?: string } | undefined;
      if (typeof body?.body !== 'string' || body.body.length === 0) return json(400, { message: { body: ["can't be blank"] } });
      const note = { id: this.nextNoteId++, body: body.body, username: this.username, system: false };
      this.change(issue, this.username, (i) => void i.notes.push(note));
      return json(201, this.renderNote(note));
    }
    if (req.method !== 'GET') return notFound();
    const ordered = req.query.get('sort') === 'asc' ? [...issue.notes] : [...issue.notes].reverse();
    return this.paged(req, ordered.map((n) => this.renderNote(n)));
  }

  private list(req: RecordedRequest): StandInResponse {
    const state = req.query.get('state') ?? 'all';
    const wanted = (req.query.get('labels') ?? '').split(',').filter(Boolean).map((l) => l.toLowerCase());
    const after = updatedSinceParam(req.query, 'updated_after');
    if (after === null) return json(400, { error: 'updated_after is invalid' });
    const byUpdated = req.query.get('order_by') === 'updated_at';
    const order = byTime<GitLabIssueState>((i) => (byUpdated ? i.updatedAt : i.createdAt), (i) => i.iid, req.query.get('sort') === 'asc' ? 'asc' : 'desc');
    const matching = [...this.issues.values()]
      .filter((i) => state === 'all' || i.state === state)
      .filter((i) => wanted.every((w) => i.labels.some((l) => l.toLowerCase() === w)))
      .filter((i) => after === undefined || Date.parse(i.updatedAt) >= after)
      .sort(order)
      .map((i) => this.render(i));
    return this.paged(req, matching);
  }

  /** Offset pages with `X-Next-Page`, `X-Page`, `X-Per-Page`, and below 10,000 items `X-Total`, `X-Total-Pages`. */
  paged(req: RecordedRequest, items: unknown[]): StandInResponse {
    const perPage = Math.min(100, intParam(req.query, 'per_page', 20));
    const page = intParam(req.query, 'page', 1);
    const { items: slice, hasNext } = pageOf(items, page, perPage);
    const counts: Record<string, string> = items.length > 10_000 ? {} : { 'x-total': String(items.length), 'x-total-pages': String(Math.max(1, Math.ceil(items.length / perPage))) };
    return json(200, slice, { 'x-page': String(page), 'x-per-page': String(perPage), ...counts, 'x-next-page': hasNext ? String(page + 1) : '' });
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
      created_at: issue.createdAt,
      updated_at: issue.updatedAt,
    };
  }

  private renderLabelEvent(issue: GitLabIssueState, e: GitLabLabelEvent): Record<string, unknown> {
    return {
      id: e.id,
      user: { id: e.username === this.username ? 4242 : 1, username: e.username, name: e.username },
      created_at: e.createdAt,
      resource_type: 'Issue',
      resource_id: 9000 + issue.iid,
      label: { id: labelId(e.label), name: e.label, color: '#6699cc', description: null },
      action: e.action,
    };
  }

  private mustGet(iid: number): GitLabIssueState {
    const issue = this.issues.get(iid);
    if (!issue) throw new Error(`no issue ${iid}`);
    return issue;
  }

  private renderNote(note: GitLabIssueState['notes'][number]): Record<string, unknown> {
    return { id: note.id, body: note.body, system: note.system, noteable_type: 'Issue', author: { username: note.username } };
  }
}

/** A stable id per label name, as a project's labels have. */
function labelId(name: string): number {
  let h = 0;
  for (const c of name.toLowerCase()) h = (h * 31 + c.charCodeAt(0)) % 100_000;
  return 1000 + h;
}

function splitLabels(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string').map((v) => v.trim()).filter(Boolean);
  if (typeof value === 'string') return value.split(',').map((v) => v.trim()).filter(Boolean);
  return [];
}
