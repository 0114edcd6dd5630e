import type { IncomingHttpHeaders } from 'node:http';
import { type AdoThreadOptions, identityIdOf } from './azure-devops-pull-request-reviews.js';
import { AdoPullRequests, type AdoPullRequestState } from './azure-devops-pull-requests.js';
import { AdoSecurity } from './azure-devops-security.js';
import { listUpdates, recordRevision } from './azure-devops-work-item-history.js';
import { parseWiql, WiqlError } from './azure-devops-wiql.js';
import { CodeHostStandIn } from './code-host-stand-in.js';
import type { PullRequestSetup } from './pull-request-code.js';
import { StandInClock } from './stand-in-clock.js';
import { basicCredentials, json, notFound, type RecordedRequest, type StandInResponse } from './stand-in-server.js';

/**
 * Azure DevOps stand-in for one organization and team project: Work Item Tracking under
 * `/{org}/{project}/_apis/wit/…`, and one Git repository with its pull requests under
 * `/{org}/{project}/_apis/git/repositories/{repo}` (azure-devops-pull-requests.ts). Semantics kept:
 * - every request needs `api-version` (400 otherwise) and Basic auth whose password is the PAT
 *   (any user name, as on the real service): 401 otherwise;
 * - `rev` is incremented on every change (field patch, comment), `System.ChangedDate` (ISO 8601
 *   UTC, from `clock`, which a test moves) set, and an update recorded: `workItems/{id}/updates`
 *   lists them oldest first (`$top` ≤ 200, `$skip`), each with the changed fields as
 *   `{oldValue, newValue}` (the creation has no `oldValue`), `revisedBy`, and `revisedDate` (when
 *   the next revision superseded it; `9999-01-01T00:00:00Z` for the latest, as on the service);
 * - `PATCH workitems/{id}` requires `Content-Type: application/json-patch+json` and applies the
 *   JSON Patch atomically: a failed `test` (e.g. on `/rev`) rejects the whole document with
 *   412 Precondition Failed (what the service answers for a stale `/rev` test; configurable to
 *   409 to exercise that path); `add` on `/fields/System.Tags` merges tags, `replace` sets
 *   them; `System.State` must be one of the process's states (400 otherwise);
 * - `System.Tags` is `; `-separated and absent when empty;
 * - comments (`workItems/{id}/comments`, api-version `7.1-preview.4`) are paged with `$top` and
 *   `continuationToken`; WIQL (`POST _apis/wit/wiql`) is parsed for real (azure-devops-wiql.ts:
 *   AND/OR, parentheses, `IN`/`NOT IN`, `CONTAINS`, dates compared to the second only with
 *   `timePrecision=true`); `GET workitems?ids=` is the batch read (≤ 200 ids) and answers only
 *   the `fields` asked for;
 * - `_links` (with `html`, the work item's web page) only with `$expand=links|all`; `$expand`
 *   together with `fields` is a 400, as on the service;
 * - `GET /{org}/_apis/connectionData` answers the PAT's identity (`authenticatedUser.id`, the
 *   id pull request comments carry as `author.id`);
 * - identities and the Git Repositories security namespace (`/{org}/_apis/identities`,
 *   `/{org}/_apis/accesscontrollists/{namespace}`, effective permissions through groups and the
 *   project's token): azure-devops-security.ts.
 */

export interface AdoWorkItemState {
  id: number;
  rev: number;
  fields: Record<string, string>;
  /** `deleted` ones are answered only with `includeDeleted=true`, as on the service. */
  comments: { id: number; text: string; uniqueName: string; deleted?: boolean }[];
  /** One per revision, oldest first (what `workItems/{id}/updates` answers). */
  updates: AdoWorkItemUpdate[];
}

export interface AdoWorkItemUpdate {
  id: number;
  rev: number;
  /** Unique name of who made the change. */
  by: string;
  revisedDate: string;
  fields: Record<string, { oldValue?: unknown; newValue?: unknown }>;
}

/** Who changes a work item in the test helpers unless told (not the service's account). */
const PERSON = 'ana@acme.example';

type PatchOp = { op?: string; path?: string; value?: unknown };

export class AzureDevOpsStandIn extends CodeHostStandIn {
  readonly items = new Map<number, AdoWorkItemState>();
  readonly git = new AdoPullRequests(this);
  readonly security = new AdoSecurity(this);
  /** Stamps `System.CreatedDate`, `System.ChangedDate` and updates; a test moves it. */
  readonly clock = new StandInClock();
  /** Status answered for a failed `test` operation. */
  testFailureStatus: 409 | 412 = 412;
  states = ['New', 'Ready for Agent', 'Active', 'Resolved', 'Closed'];
  /** The work item types `POST …/workitems/${type}` accepts (an Agile process's). */
  workItemTypes = ['User Story', 'Task', 'Bug', 'Feature', 'Epic'];
  /** Page size of the comments list when `$top` is not given. */
  commentsPageSize = 200;
  private nextCommentId = 1;

  constructor(
    readonly pat: string,
    readonly organization = 'acme',
    readonly project = 'Shop',
    readonly uniqueName = 'pipeline-bot@acme.example',
    /** The Git repository in the project. */
    readonly repository = 'shop-web',
  ) {
    super();
  }

  /** Value to configure as `organization_url`. */
  get organizationUrl(): string {
    return `${this.url}/${this.organization}`;
  }

  /** The organization's web address, as `_links.html` spells it (nothing serves it here). */
  get webOrganizationUrl(): string {
    return `https://dev.azure.com/${this.organization}`;
  }

  /** `description` is HTML, stored as `System.Description` (absent when null, as on the service). */
  addWorkItem(id: number, state: string, tags: string[] = [], title = `Work item ${id}`, description: string | null = null): AdoWorkItemState {
    const item: AdoWorkItemState = { id, rev: 0, fields: { 'System.State': state, 'System.TeamProject': this.project, 'System.Title': title }, comments: [], updates: [] };
    if (description !== null) item.fields['System.Description'] = description;
    setTags(item, tags);
    this.commit(item, {}, PERSON);
    this.items.set(id, item);
    return item;
  }

  /** Someone moves the work item to `state` (one of `states`), as on the board. */
  setState(id: number, state: string, by = PERSON): void {
    if (!this.states.includes(state)) throw new Error(`${state} is not a state of the process`);
    this.concurrentEdit(id, (item) => (item.fields['System.State'] = state), by);
  }

  /** Someone adds and removes tags (case-insensitive, as the service matches them). */
  editTags(id: number, change: { add?: string[]; remove?: string[] }, by = PERSON): void {
    const removed = new Set((change.remove ?? []).map((t) => t.toLowerCase()));
    this.concurrentEdit(id, (item) => setTags(item, [...splitTags(item.fields['System.Tags']).filter((t) => !removed.has(t.toLowerCase())), ...(change.add ?? [])]), by);
  }

  /** A comment by someone (by default not the service's account); bumps `rev` like a real one. */
  addComment(id: number, text: string, opts: { uniqueName?: string; deleted?: boolean } = {}): number {
    const item = this.items.get(id);
    if (!item) throw new Error(`no work item ${id}`);
    const commentId = this.nextCommentId++;
    item.comments.push({ id: commentId, text, uniqueName: opts.uniqueName ?? PERSON, deleted: opts.deleted ?? false });
    this.commit(item, { ...item.fields }, opts.uniqueName ?? PERSON);
    return commentId;
  }

  /** The repository's web address, the URL to configure as a repo's `url`. */
  get repositoryWebUrl(): string {
    return `${this.webOrganizationUrl}/${encodeURIComponent(this.project)}/_git/${encodeURIComponent(this.repository)}`;
  }

  /**
   * A pull request the test sets up, with code: the mounted repository's branches, a fork's
   * branch, or files. Answers its id.
   */
  openPullRequest(setup: PullRequestSetup): number {
    return this.git.open(setup).pullRequestId;
  }

  /** A thread on a pull request by someone (by default not the service's identity). */
  addThread(id: number, content: string, opts: AdoThreadOptions = {}): number {
    return this.git.reviews.addThread(this.git.get(id), content, opts);
  }

  /** A reply in a pull request's thread; answers the comment's id within the thread. */
  addReply(id: number, threadId: number, content: string, opts: { uniqueName?: string; publishedDate?: string } = {}): number {
    return this.git.reviews.addReply(this.git.get(id), threadId, content, opts);
  }

  /** Someone resolves (`fixed`, `closed`, …) or reactivates a thread. */
  setThreadStatus(id: number, threadId: number, status: string): void {
    const thread = this.git.get(id).threads.find((t) => t.id === threadId);
    if (!thread) throw new Error(`no thread ${threadId}`);
    thread.status = status;
  }

  get pullRequests(): AdoPullRequestState[] {
    return [...this.git.all.values()];
  }

  pullRequest(id: number): AdoPullRequestState {
    return this.git.get(id);
  }

  mergePullRequest(id: number): void {
    this.git.get(id).status = 'completed';
  }

  closePullRequest(id: number): void {
    this.git.get(id).status = 'abandoned';
  }

  tagsOf(id: number): string[] {
    return splitTags(this.items.get(id)?.fields['System.Tags']);
  }

  /** Someone else edits the work item (`rev` is bumped, `System.ChangedDate` moves, an update is recorded). */
  concurrentEdit(id: number, mutate: (item: AdoWorkItemState) => void = () => {}, by = PERSON): void {
    const item = this.items.get(id);
    if (!item) throw new Error(`no work item ${id}`);
    const before = { ...item.fields };
    mutate(item);
    this.commit(item, before, by);
  }

  private commit(item: AdoWorkItemState, before: Record<string, string>, by: string): void {
    recordRevision(item, before, by, this.clock.now());
  }

  protected authorized(headers: IncomingHttpHeaders): boolean {
    return basicCredentials(headers.authorization)?.[1] === this.pat;
  }

  protected unauthorizedBody(): unknown {
    return { message: 'TF400813: The user is not authorized to access this resource.' };
  }

  protected serve(req: RecordedRequest, s: string[]): StandInResponse {
    if (s[0] === this.organization && s[1]?.toLowerCase() === '_apis' && s[2]?.toLowerCase() === 'connectiondata' && s.length === 3) return this.connectionData();
    if (s[0] === this.organization && s[1]?.toLowerCase() === '_apis' && ['identities', 'accesscontrollists'].includes(s[2]?.toLowerCase() ?? '')) return this.security.route(req, s.slice(2));
    if (s[0] !== this.organization || s[1] !== this.project || s[2]?.toLowerCase() !== '_apis' || (s[3] !== 'wit' && s[3] !== 'git')) return notFound({ message: 'project not found' });
    if (!req.query.get('api-version')) return json(400, { message: 'No api-version was supplied for the request.' });
    if (s[3] === 'git') return this.git.route(req, s.slice(4));
    const resource = s[4]?.toLowerCase();
    if (resource === 'wiql' && req.method === 'POST') return this.wiql(req);
    if (resource !== 'workitems') return notFound();
    if (s.length === 5 && req.method === 'GET') return this.batch(req);
    if (s.length === 6 && req.method === 'POST' && s[5]?.startsWith('$')) return this.create(s[5].slice(1), req);
    const item = this.items.get(Number(s[5]));
    if (!item) return notFound({ message: `TF401232: Work item ${s[5]} does not exist, or you do not have permissions to read it.` });
    if (s.length === 6 && req.method === 'GET') return json(200, this.render(item, { links: expandsLinks(req.query) }));
    if (s.length === 6 && req.method === 'PATCH') return this.patch(item, req);
    if (s.length === 7 && s[6] === 'comments') return this.comments(item, req);
    if (s.length === 7 && s[6]?.toLowerCase() === 'updates' && req.method === 'GET') return listUpdates(item, req, this.organizationUrl);
    return notFound();
  }

  private connectionData(): StandInResponse {
    const identity = { id: identityIdOf(this.uniqueName), providerDisplayName: this.uniqueName.split('@')[0], isActive: true, properties: { Account: { $type: 'System.String', $value: this.uniqueName } } };
    return json(200, { authenticatedUser: identity, authorizedUser: identity, instanceId: '8f8a9e0d-0000-4000-8000-000000000001', deploymentType: 'hosted' });
  }

  private patch(item: AdoWorkItemState, req: RecordedRequest): StandInResponse {
    if (!(req.headers['content-type'] ?? '').startsWith('application/json-patch+json')) {
      return json(415, { message: 'Valid content types for this method are: application/json-patch+json.' });
    }
    if (!Array.isArray(req.body)) return json(400, { message: 'You must pass a valid patch document in the body of the request.' });
    const draft: AdoWorkItemState = { ...item, fields: { ...item.fields } };
    for (const op of req.body as PatchOp[]) {
      const failure = this.apply(draft, op);
      if (failure) return failure;
    }
    const before = item.fields;
    item.fields = draft.fields;
    this.commit(item, before, this.uniqueName);
    return json(200, this.render(item));
  }

  /**
   * `POST …/_apis/wit/workitems/${type}`: a JSON Patch document (`application/json-patch+json`)
   * of `add` operations on fields; the type must be one of `workItemTypes` (404 VS402323
   * otherwise), `System.Title` is required (400 TF401320), the state starts as the first of
   * `states` unless the document sets one → 200 with the new work item (the next id).
   */
  private create(type: string, req: RecordedRequest): StandInResponse {
    if (!(req.headers['content-type'] ?? '').startsWith('application/json-patch+json')) {
      return json(415, { message: 'Valid content types for this method are: application/json-patch+json.' });
    }
    if (!Array.isArray(req.body)) return json(400, { message: 'You must pass a valid patch document in the body of the request.' });
    const known = this.workItemTypes.find((t) => t.toLowerCase() === type.toLowerCase());
    if (!known) return json(404, { message: `VS402323: Work item type ${type} does not exist in project ${this.project} or you do not have permission to access it.`, typeKey: 'WorkItemTypeNotFoundException' });
    const id = Math.max(0, ...this.items.keys()) + 1;
    const item: AdoWorkItemState = { id, rev: 0, fields: { 'System.State': this.states[0] ?? 'New', 'System.TeamProject': this.project, 'System.WorkItemType': known }, comments: [], updates: [] };
    for (const op of req.body as PatchOp[]) {
      const failure = this.apply(item, op);
      if (failure) return failure;
    }
    if (!item.fields['System.Title']) return json(400, { message: 'TF401320: Rule Error for field Title. Error code: Required, InvalidEmpty.' });
    this.commit(item, {}, this.uniqueName);
    this.items.set(id, item);
    return json(200, this.render(item, { links: expandsLinks(req.query) }));
  }

  private apply(item: AdoWorkItemState, { op, path, value }: PatchOp): StandInResponse | null {
    if (op === 'test') {
      const current: unknown = path === '/rev' ? item.rev : path === '/id' ? item.id : item.fields[path?.replace(/^\/fields\//, '') ?? ''];
      if (current === value) return null;
      return json(this.testFailureStatus, { message: `The test operation on ${path} failed: expected ${JSON.stringify(value)}, found ${JSON.stringify(current)}.` });
    }
    const field = /^\/fields\/(.+)$/.exec(path ?? '')?.[1];
    if (!field) return json(400, { message: `Invalid path ${path}` });
    if (op === 'remove') {
      delete item.fields[field];
      return null;
    }
    if (op !== 'add' && op !== 'replace') return json(400, { message: `Unsupported operation ${op}` });
    if (field === 'System.State' && !this.states.includes(String(value))) {
      return json(400, { message: `TF401320: Rule Error for field State. Error code: Required, HasValues, LimitedToValues, AllowsOldValue, InvalidEmpty.` });
    }
    if (field === 'System.Tags') {
      const incoming = splitTags(String(value ?? ''));
      setTags(item, op === 'add' ? [...splitTags(item.fields['System.Tags']), ...incoming] : incoming);
      return null;
    }
    item.fields[field] = String(value);
    return null;
  }

  private comments(item: AdoWorkItemState, req: RecordedRequest): StandInResponse {
    if (req.method === 'POST') {
      const text = (req.body as { text?: unknown } | undefined)?.text;
      if (typeof text !== 'string' || text.length === 0) return json(400, { message: 'Comment text cannot be empty.' });
      const comment = { id: this.nextCommentId++, text, uniqueName: this.uniqueName };
      item.comments.push(comment);
      this.commit(item, { ...item.fields }, this.uniqueName);
      return json(200, this.renderComment(item, comment));
    }
    if (req.method !== 'GET') return notFound();
    const top = Math.min(200, Number(req.query.get('$top')) || this.commentsPageSize);
    const visible = req.query.get('includeDeleted') === 'true' ? item.comments : item.comments.filter((c) => !c.deleted);
    const ordered = req.query.get('order') === 'desc' ? [...visible].reverse() : [...visible];
    const start = Number(req.query.get('continuationToken') ?? 0);
    const slice = ordered.slice(start, start + top);
    const more = start + top < ordered.length;
    return json(200, {
      totalCount: visible.length,
      count: slice.length,
      comments: slice.map((c) => this.renderComment(item, c)),
      ...(more ? { continuationToken: String(start + top) } : {}),
    });
  }

  private wiql(req: RecordedRequest): StandInResponse {
    const text = (req.body as { query?: unknown } | undefined)?.query;
    if (typeof text !== 'string') return json(400, { message: 'The query text is required.' });
    let query;
    try {
      query = parseWiql(text, { project: this.project, timePrecision: req.query.get('timePrecision')?.toLowerCase() === 'true' });
    } catch (err) {
      if (err instanceof WiqlError) return json(400, { message: err.message, typeKey: 'QueryException' });
      throw err;
    }
    const order = query.orderBy.length > 0 ? query.orderBy : [{ field: 'System.Id', desc: false }];
    const sortKey = (i: AdoWorkItemState, field: string): string | number => (field === 'System.Id' ? i.id : (i.fields[field] ?? '').toLowerCase());
    const ids = [...this.items.values()]
      .filter((i) => query.where({ id: i.id, fields: i.fields }))
      .sort((a, b) => {
        for (const { field, desc } of order) {
          const [x, y] = [sortKey(a, field), sortKey(b, field)];
          if (x !== y) return (x < y ? -1 : 1) * (desc ? -1 : 1);
        }
        return 0;
      })
      .map((i) => i.id);
    return json(200, { queryType: 'flat', asOf: this.clock.now().toISOString(), workItems: ids.map((id) => ({ id, url: `${this.organizationUrl}/_apis/wit/workItems/${id}` })) });
  }

  private batch(req: RecordedRequest): StandInResponse {
    const ids = (req.query.get('ids') ?? '').split(',').filter(Boolean).map(Number);
    if (ids.length === 0 || ids.length > 200) return json(400, { message: 'The number of ids must be between 1 and 200.' });
    const fields = req.query.get('fields');
    const links = expandsLinks(req.query);
    if (fields !== null && req.query.get('$expand') !== null) {
      return json(400, { message: 'The expand parameter can not be used with the fields parameter.' });
    }
    const omit = req.query.get('errorPolicy')?.toLowerCase() === 'omit';
    const missing = ids.filter((id) => !this.items.has(id));
    if (missing.length > 0 && !omit) return notFound({ message: `TF401232: Work item ${missing[0]} does not exist.` });
    const value = ids.map((id) => this.items.get(id)).map((item) => (item ? this.render(item, { links, fields: fields?.split(',') }) : null));
    return json(200, { count: value.length, value });
  }

  /** `fields` limits the fields answered; `_links` only with `$expand=links|all`. */
  private render(item: AdoWorkItemState, opts: { links?: boolean; fields?: string[] } = {}): Record<string, unknown> {
    const wanted = opts.fields?.map((f) => f.trim().toLowerCase());
    const fields = Object.fromEntries(Object.entries(item.fields).filter(([name]) => wanted === undefined || wanted.includes(name.toLowerCase())));
    const apiUrl = `${this.organizationUrl}/_apis/wit/workItems/${item.id}`;
    return {
      id: item.id,
      rev: item.rev,
      fields,
      ...(opts.links
        ? { _links: { self: { href: apiUrl }, html: { href: `${this.webOrganizationUrl}/${encodeURIComponent(this.project)}/_workitems/edit/${item.id}` } } }
        : {}),
      url: apiUrl,
    };
  }

  private renderComment(item: AdoWorkItemState, c: AdoWorkItemState['comments'][number]): Record<string, unknown> {
    return { workItemId: item.id, id: c.id, version: 1, text: c.text, isDeleted: c.deleted ?? false, createdBy: { displayName: c.uniqueName.split('@')[0], uniqueName: c.uniqueName } };
  }
}

function expandsLinks(query: URLSearchParams): boolean {
  const expand = query.get('$expand')?.toLowerCase();
  return expand === 'links' || expand === 'all';
}

function splitTags(tags: string | undefined): string[] {
  return (tags ?? '').split(';').map((t) => t.trim()).filter(Boolean);
}

function setTags(item: AdoWorkItemState, tags: string[]): void {
  const seen = new Set<string>();
  const unique = tags.filter((t) => (seen.has(t.toLowerCase()) ? false : (seen.add(t.toLowerCase()), true)));
  if (unique.length === 0) delete item.fields['System.Tags'];
  else item.fields['System.Tags'] = unique.join('; ');
}
