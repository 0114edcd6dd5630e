import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { CodeHostStandIn } from './code-host-stand-in.js';
import { answerGraphQl } from './github-graphql.js';
import { isoSeconds, listIssues, renderIssueEvent, type GitHubIssueEvent } from './github-issue-queries.js';
import { labelChanges } from './issue-history.js';
import { StandInClock } from './stand-in-clock.js';
import { GitHubPullRequests, type GitHubPullState } from './github-pull-requests.js';
import type { PullRequestSetup } from './pull-request-code.js';
import { intParam, json, notFound, pageOf, type RecordedRequest, type StandInResponse } from './stand-in-server.js';

/**
 * GitHub REST v3 stand-in for one repository: its issues, `GET /repos/{o}/{r}` (with
 * `default_branch`) and its pull requests (github-pull-requests.ts). Semantics kept from the
 * real service:
 * - `GET /repos/{o}/{r}/issues/{n}` answers a weak `ETag` derived from the representation, so
 *   it changes on every modification (labels, state, comments bump `updated_at`, whole seconds
 *   of `clock`);
 * - the issue list takes `state`, `labels` (AND), `since` (updated at or after; 422 when
 *   unparsable), `sort=created|updated|comments` and `direction` (github-issue-queries.ts);
 * - `GET …/issues/{n}/events` answers `labeled` / `unlabeled` (with `label.name`), `closed` and
 *   `reopened` events, oldest first, for changes through the API and through the helpers alike;
 * - `PATCH` with `If-Match` not matching the current ETag answers 412 and changes nothing;
 *   `labels` in a PATCH replaces the whole set;
 * - `POST …/labels` adds, `DELETE …/labels/{name}` removes (404 when absent), both answer the
 *   issue's labels; comments are paginated with `per_page`/`page` and a `Link` header;
 * - the issue list includes pull requests (clients must filter); pages answer `Link` with
 *   `next` and `last` (and `prev`, `first` after the first);
 * - `Authorization: Bearer|token <token>` is required (401 `Bad credentials` otherwise);
 * - `GET /user` answers the token's account (`login`); a pull request's conversation is its
 *   issue comments (`GET`/`POST issues/{n}/comments`, `PATCH issues/comments/{id}`);
 * - `POST /graphql` answers the review-threads query (github-graphql.ts).
 */

export interface GitHubIssueState {
  number: number;
  title: string;
  /** Markdown; GitHub answers `body: null` for an issue without a description. */
  body: string | null;
  state: 'open' | 'closed';
  labels: string[];
  isPullRequest: boolean;
  version: number;
  /** `createdAt` defaults to the epoch of the stand-in's clock when a test pushes one directly. */
  comments: { id: number; body: string; login: string; createdAt?: string }[];
  /** Whole seconds, like GitHub's; `updatedAt` moves on every change (`setTimes` sets both). */
  createdAt: string;
  updatedAt: string;
  /** The issue's events, oldest first. Assigning `labels` directly records none: use the helpers. */
  events: GitHubIssueEvent[];
}

export type { GitHubIssueEvent };

export class GitHubStandIn extends CodeHostStandIn {
  readonly issues = new Map<number, GitHubIssueState>();
  readonly pulls = new GitHubPullRequests(this);
  /** Whether `head` has commits `base` lacks; a pull request without any is refused. */
  hasCommitsBetween: (base: string, head: string) => boolean = (base, head) => base !== head;
  /** Issue times and events; real time unless a test moves it. */
  readonly clock = new StandInClock();
  private nextCommentId = 1000;
  private nextEventId = 7000;

  constructor(
    readonly token: string,
    readonly owner = 'acme',
    readonly repo = 'shop-web',
    readonly login = 'pipeline-bot',
  ) {
    super();
  }

  /** Base to configure as `api_url`. */
  get apiUrl(): string {
    return this.url;
  }

  /** The repository's web page, as `html_url`s spell it (github.com: nothing serves it here). */
  get webUrl(): string {
    return `https://github.com/${this.owner}/${this.repo}`;
  }

  addIssue(
    number: number,
    labels: string[] = [],
    opts: { state?: 'open' | 'closed'; isPullRequest?: boolean; title?: string; body?: string | null; author?: string } = {},
  ): GitHubIssueState {
    const at = this.stampNow();
    const issue: GitHubIssueState = {
      number,
      title: opts.title ?? `Issue ${number}`,
      body: opts.body ?? null,
      state: opts.state ?? 'open',
      labels: [...labels],
      isPullRequest: opts.isPullRequest ?? false,
      version: 1,
      comments: [],
      createdAt: at,
      updatedAt: at,
      events: [],
    };
    // Labels given at creation are `labeled` events at creation, as on GitHub.
    for (const label of issue.labels) this.event(issue, 'labeled', opts.author ?? 'octo-user', at, label);
    this.issues.set(number, issue);
    return issue;
  }

  /** Someone labels the issue now: a `labeled` event, `updated_at` moves. */
  addLabel(number: number, label: string, login = 'octo-user'): void {
    this.change(this.mustGet(number), login, (issue) => void (issue.labels = dedupe([...issue.labels, label])));
  }

  /** Someone removes a label now: an `unlabeled` event, `updated_at` moves. */
  removeLabel(number: number, label: string, login = 'octo-user'): void {
    this.change(this.mustGet(number), login, (issue) => void (issue.labels = issue.labels.filter((l) => l.toLowerCase() !== label.toLowerCase())));
  }

  closeIssue(number: number, login = 'octo-user'): void {
    this.change(this.mustGet(number), login, (issue) => void (issue.state = 'closed'));
  }

  reopenIssue(number: number, login = 'octo-user'): void {
    this.change(this.mustGet(number), login, (issue) => void (issue.state = 'open'));
  }

  /** The issue's times, as if it was created or last changed then (no event is recorded). */
  setTimes(number: number, times: { createdAt?: Date | string; updatedAt?: Date | string }): void {
    const issue = this.mustGet(number);
    if (times.createdAt !== undefined) issue.createdAt = isoSeconds(new Date(times.createdAt));
    if (times.updatedAt !== undefined) issue.updatedAt = isoSeconds(new Date(times.updatedAt));
  }

  /**
   * A pull request the test sets up, with code: the mounted repository's branches, a fork's
   * branch (fetched to `refs/pull/N/head`), or files. Answers its number.
   */
  openPullRequest(setup: PullRequestSetup): number {
    return this.pulls.open(setup).number;
  }

  /** Someone (by default not the service's account) comments on the issue or pull request, at `createdAt` if given. */
  addComment(number: number, body: string, login = 'octo-user', createdAt?: string): number {
    const pull = this.issues.has(number) ? undefined : this.pulls.all.get(number);
    if (pull) {
      const id = this.nextCommentId++;
      pull.comments.push({ id, body, login, createdAt: createdAt ?? this.stamp(pull.comments.length) });
      return id;
    }
    const issue = this.mustGet(number);
    const id = this.nextCommentId++;
    this.change(issue, login, (i) => void i.comments.push({ id, body, login, createdAt: createdAt ?? this.stamp(i.comments.length) }));
    return id;
  }

  get pullRequests(): GitHubPullState[] {
    return [...this.pulls.all.values()];
  }

  pullRequest(number: number): GitHubPullState {
    return this.pulls.get(number);
  }

  mergePullRequest(number: number): void {
    const pull = this.pulls.get(number);
    pull.state = 'closed';
    pull.mergedAt = '2026-01-02T00:00:00Z';
  }

  closePullRequest(number: number): void {
    this.pulls.get(number).state = 'closed';
  }

  /** Issues and pull requests share one number sequence on GitHub. */
  nextNumber(): number {
    return Math.max(0, ...this.issues.keys(), ...this.pulls.all.keys()) + 1;
  }

  /** Someone else edits the issue (the ETag and `updated_at` change; label and state changes are events). */
  concurrentEdit(number: number, mutate: (issue: GitHubIssueState) => void = () => {}, login = 'octo-user'): void {
    this.change(this.mustGet(number), login, mutate);
  }

  /** The representation and the version: a change within the same second still changes the tag. */
  etagOf(issue: GitHubIssueState): string {
    const digest = createHash('sha1').update(JSON.stringify(this.render(issue))).update(`#${issue.version}`).digest('hex');
    return `W/"${digest}"`;
  }

  protected authorized(headers: IncomingHttpHeaders): boolean {
    const match = /^(?:Bearer|token)\s+(.+)$/i.exec(headers.authorization ?? '');
    return match?.[1] === this.token;
  }

  protected unauthorizedBody(): unknown {
    return { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' };
  }

  protected serve(req: RecordedRequest, s: string[]): StandInResponse {
    if (s[0] === 'user' && s.length === 1 && req.method === 'GET') return json(200, { login: this.login, id: 9001, type: 'User' });
    if (s[0] === 'graphql' && s.length === 1 && req.method === 'POST') {
      return answerGraphQl(req, { owner: this.owner, repo: this.repo, hasPull: (n) => this.pulls.all.has(n), threadsOf: (n) => this.pulls.reviews.threadsOf(n) });
    }
    if (s[0] !== 'repos' || s[1] !== this.owner || s[2] !== this.repo) return notFound();
    if (s.length === 3 && req.method === 'GET') return json(200, this.renderRepository());
    if (s[3] === 'pulls') return this.pulls.route(req, s.slice(4));
    if (s[3] !== 'issues') return notFound();
    if (s.length === 4 && req.method === 'GET') return this.list(req);
    if (s.length === 4 && req.method === 'POST') return this.createIssue(req);
    if (s[4] === 'comments' && s.length === 6 && req.method === 'PATCH') return this.editComment(Number(s[5]), req);
    const issue = this.issues.get(Number(s[4]));
    const pull = issue ? undefined : this.pulls.all.get(Number(s[4]));
    if (pull && s[5] === 'comments' && s.length === 6) return this.comments(pull, req);
    if (!issue) return notFound();
    if (s.length === 5 && req.method === 'GET') return json(200, this.render(issue), { etag: this.etagOf(issue) });
    if (s.length === 5 && req.method === 'PATCH') return this.patch(issue, req);
    if (s[5] === 'labels') return this.labels(issue, req, s[6]);
    if (s[5] === 'comments' && s.length === 6) return this.comments(issue, req, issue);
    if (s[5] === 'events' && s.length === 6 && req.method === 'GET') return this.paged(req, issue.events.map((e) => renderIssueEvent(e, `${this.url}/repos/${this.owner}/${this.repo}`)));
    return notFound();
  }

  /**
   * `POST /repos/{o}/{r}/issues`: `title` required (422 `Validation Failed` otherwise), `body`,
   * `labels` (names; a label that does not exist yet is created, as for an account with push
   * access) → 201 with the issue; issues and pull requests share one number sequence.
   */
  private createIssue(req: RecordedRequest): StandInResponse {
    const body = (req.body ?? {}) as { title?: unknown; body?: unknown; labels?: unknown };
    if (typeof body.title !== 'string' || body.title.trim() === '') {
      return json(422, { message: 'Validation Failed', errors: [{ resource: 'Issue', code: 'missing_field', field: 'title' }], documentation_url: 'https://docs.github.com/rest/issues/issues#create-an-issue', status: '422' });
    }
    const labels = Array.isArray(body.labels) ? body.labels.map((l) => (typeof l === 'string' ? l : String((l as { name?: unknown }).name))) : [];
    const issue = this.addIssue(this.nextNumber(), dedupe(labels), { title: body.title, body: typeof body.body === 'string' && body.body !== '' ? body.body : null, author: this.login });
    return json(201, this.render(issue), { etag: this.etagOf(issue) });
  }

  /** Applies a change `login` makes now: label and state events, `updated_at`, a new ETag. */
  private change(issue: GitHubIssueState, login: string, mutate: (issue: GitHubIssueState) => void): void {
    const before = { labels: [...issue.labels], state: issue.state };
    mutate(issue);
    const at = this.stampNow();
    const { added, removed } = labelChanges(before.labels, issue.labels);
    for (const label of added) this.event(issue, 'labeled', login, at, label);
    for (const label of removed) this.event(issue, 'unlabeled', login, at, label);
    if (before.state !== issue.state) this.event(issue, issue.state === 'closed' ? 'closed' : 'reopened', login, at);
    issue.updatedAt = at;
    issue.version++;
  }

  private event(issue: GitHubIssueState, event: GitHubIssueEvent['event'], actor: string, createdAt: string, label?: string): void {
    issue.events.push({ id: this.nextEventId++, event, actor, createdAt, ...(label === undefined ? {} : { label }) });
  }

  private patch(issue: GitHubIssueState, req: RecordedRequest): StandInResponse {
    const ifMatch = req.headers['if-match'];
    if (ifMatch !== undefined && ifMatch !== '*' && !sameEntityTag(ifMatch, this.etagOf(issue))) {
      return json(412, { message: 'Precondition Failed', documentation_url: 'https://docs.github.com/rest', status: '412' });
    }
    const body = (req.body ?? {}) as { labels?: (string | { name: string })[]; state?: 'open' | 'closed'; title?: string; body?: string | null };
    this.change(issue, this.login, (i) => {
      if (body.labels !== undefined) i.labels = dedupe(body.labels.map((l) => (typeof l === 'string' ? l : l.name)));
      if (body.state !== undefined) i.state = body.state;
      if (body.title !== undefined) i.title = body.title;
      if (body.body !== undefined) i.body = body.body || null;
    });
    return json(200, this.render(issue), { etag: this.etagOf(issue) });
  }

  private labels(issue: GitHubIssueState, req: RecordedRequest, name: string | undefined): StandInResponse {
    if (req.method === 'POST' && name === undefined) {
      const body = req.body as { labels?: string[] } | undefined;
      const labels = body?.labels;
      if (!Array.isArray(labels)) return json(422, { message: 'Invalid request.' });
      this.change(issue, this.login, (i) => void (i.labels = dedupe([...i.labels, ...labels])));
      return json(200, issue.labels.map(labelObject));
    }
    if (req.method === 'DELETE' && name !== undefined) {
      const index = issue.labels.findIndex((l) => l.toLowerCase() === name.toLowerCase());
      if (index < 0) return json(404, { message: 'Label does not exist' });
      this.change(issue, this.login, (i) => void i.labels.splice(index, 1));
      return json(200, issue.labels.map(labelObject));
    }
    return notFound();
  }

  /** Comments of an issue, or of a pull request's conversation (which has no ETag or `updated_at` here). */
  private comments(holder: Pick<GitHubIssueState, 'comments'>, req: RecordedRequest, issue?: GitHubIssueState): StandInResponse {
    if (req.method === 'POST') {
      const body = req.body as { body?: string } | undefined;
      if (typeof body?.body !== 'string') return json(422, { message: 'Invalid request.' });
      const comment = { id: this.nextCommentId++, body: body.body, login: this.login, createdAt: this.stamp(holder.comments.length) };
      if (issue) this.change(issue, this.login, (i) => void i.comments.push(comment));
      else holder.comments.push(comment);
      return json(201, renderComment(comment));
    }
    if (req.method !== 'GET') return notFound();
    // Ascending by id, the only order the endpoint has.
    return this.paged(req, holder.comments.map(renderComment));
  }

  /** `PATCH issues/comments/{id}`: edits an issue's or a pull request's comment. */
  private editComment(id: number, req: RecordedRequest): StandInResponse {
    const body = (req.body as { body?: unknown } | undefined)?.body;
    const holders = [...this.issues.values(), ...this.pulls.all.values()];
    const comment = holders.flatMap((h) => h.comments).find((c) => c.id === id);
    if (!comment) return notFound();
    if (typeof body !== 'string') return json(422, { message: 'Invalid request.' });
    comment.body = body;
    return json(200, renderComment(comment));
  }

  private list(req: RecordedRequest): StandInResponse {
    const listed = listIssues(this.issues.values(), req.query);
    return Array.isArray(listed) ? this.paged(req, listed.map((i) => this.render(i))) : listed;
  }

  /** Offset pages with a `Link` header: `next` and `last` while there are more, `prev` and `first` after the first. */
  paged(req: RecordedRequest, items: unknown[]): StandInResponse {
    const perPage = Math.min(100, intParam(req.query, 'per_page', 30));
    const page = intParam(req.query, 'page', 1);
    const { items: slice, hasNext } = pageOf(items, page, perPage);
    const at = (n: number): string => {
      const query = new URLSearchParams(req.query);
      query.set('page', String(n));
      return `<${this.url}${req.path}?${query.toString()}>`;
    };
    const links: string[] = [];
    if (page > 1) links.push(`${at(page - 1)}; rel="prev"`);
    if (hasNext) links.push(`${at(page + 1)}; rel="next"`, `${at(Math.ceil(items.length / perPage))}; rel="last"`);
    if (page > 1) links.push(`${at(1)}; rel="first"`);
    return json(200, slice, links.length > 0 ? { link: links.join(', ') } : {});
  }

  private renderRepository(): Record<string, unknown> {
    return {
      id: 4242,
      name: this.repo,
      full_name: `${this.owner}/${this.repo}`,
      owner: { login: this.owner },
      private: true,
      html_url: this.webUrl,
      url: `${this.url}/repos/${this.owner}/${this.repo}`,
      default_branch: this.defaultBranch,
    };
  }

  private render(issue: GitHubIssueState): Record<string, unknown> {
    return {
      url: `${this.url}/repos/${this.owner}/${this.repo}/issues/${issue.number}`,
      html_url: `${this.webUrl}/${issue.isPullRequest ? 'pull' : 'issues'}/${issue.number}`,
      number: issue.number,
      title: issue.title,
      body: issue.body,
      state: issue.state,
      labels: issue.labels.map(labelObject),
      comments: issue.comments.length,
      created_at: issue.createdAt,
      updated_at: issue.updatedAt,
      ...(issue.isPullRequest ? { pull_request: { url: `${this.url}/repos/${this.owner}/${this.repo}/pulls/${issue.number}` } } : {}),
    };
  }

  private stampNow(): string {
    return isoSeconds(this.clock.now());
  }

  /** Comment times in order of arrival, a minute apart. */
  private stamp(index: number): string {
    return new Date(Date.UTC(2026, 0, 1) + index * 60_000).toISOString();
  }

  private mustGet(number: number): GitHubIssueState {
    const issue = this.issues.get(number);
    if (!issue) throw new Error(`no issue ${number}`);
    return issue;
  }
}

const STAMP_ZERO = new Date(Date.UTC(2026, 0, 1)).toISOString();

function renderComment(c: GitHubIssueState['comments'][number]): Record<string, unknown> {
  return { id: c.id, body: c.body, user: { login: c.login, type: 'User' }, created_at: c.createdAt ?? STAMP_ZERO, updated_at: c.createdAt ?? STAMP_ZERO };
}

function labelObject(name: string): { name: string } {
  return { name };
}

function dedupe(labels: string[]): string[] {
  const seen = new Set<string>();
  return labels.filter((l) => (seen.has(l.toLowerCase()) ? false : (seen.add(l.toLowerCase()), true)));
}

/** Weak comparison (RFC 9110 §8.8.3.2): opaque tags equal, `W/` ignored; a list is allowed. */
function sameEntityTag(header: string, current: string): boolean {
  const strip = (tag: string): string => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => strip(tag) === strip(current));
}
