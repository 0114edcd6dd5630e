import { createHash } from 'node:crypto';
import type { AdoPullRequestState } from './azure-devops-pull-requests.js';
import { changedFiles, fileBytes, mergeBaseOf, shaOf, ZERO_SHA, type StandInChangedFile } from './pull-request-code.js';
import { json, notFound, type RecordedRequest, type StandInResponse } from './stand-in-server.js';

/**
 * The review side of the Azure DevOps stand-in's pull requests, with the service's answers:
 * - `GET pullRequests/{id}/iterations`: one iteration per head the pull request has had (a push
 *   to the head branch makes the next one when the iterations are read), each with its
 *   `sourceRefCommit`, `targetRefCommit` and `commonRefCommit` (the merge base);
 * - `GET …/iterations/{n}/changes?$top&$skip`: `changeEntries` (`item.path` with a leading
 *   slash, `changeType` `add`, `edit`, `delete`, `rename` or `edit, rename`, `originalPath`),
 *   no line numbers; `nextSkip`/`nextTop` are 0 on the last page;
 * - `GET repositories/{repo}/items?path&versionDescriptor.version&…versionType=commit&includeContent=true`
 *   (`content`; a binary file's is base64 with `contentMetadata.isBinary`), 404 TF401174 when the
 *   commit has no such file;
 * - threads: `GET`/`POST pullRequests/{id}/threads` (a `threadContext` needs a `filePath`
 *   starting with `/` and `rightFileStart`/`rightFileEnd` lines and offsets from 1: 400
 *   otherwise), `PATCH threads/{t}` (`status`), `PATCH`/`DELETE threads/{t}/comments/{c}`
 *   (a deleted comment stays, `isDeleted: true`, as the service keeps it). Threads cannot be
 *   deleted. Comments record their author's identity (`connectionData` for the PAT) and
 *   `publishedDate` (a clock a minute a tick from 2026-01-01, or the test's time); the service's
 *   own threads (a vote, a push) carry no `status` and a `system` comment.
 */

export interface AdoIterationState {
  id: number;
  source: string;
  target: string;
  common: string;
}

export interface AdoThreadCommentState {
  id: number;
  parentCommentId: number;
  content: string;
  uniqueName: string;
  isDeleted: boolean;
  /** 1 text, 3 system (the service's enum). */
  commentType: number;
  publishedDate: string;
}

export interface AdoThreadState {
  id: number;
  /** Null on the service's own threads, which have none. */
  status: string | null;
  threadContext: Record<string, unknown> | null;
  comments: AdoThreadCommentState[];
}

export interface AdoReviewHost {
  readonly uniqueName: string;
  readonly repository: string;
  /** Bare repositories a commit of the pull requests may be in (the mounted one, a scratch one). */
  repositories(): string[];
}

const STATUS_NAMES = ['unknown', 'active', 'fixed', 'wontFix', 'closed', 'byDesign', 'pending'];
const TEXT_COMMENT = 1;
const SYSTEM_COMMENT = 3;

export interface AdoThreadOptions {
  uniqueName?: string;
  filePath?: string;
  line?: number;
  /** `active` by default; `fixed`, `closed`, `pending`, … */
  status?: string;
  publishedDate?: string;
  system?: boolean;
}

/** A stable identity id (a GUID) for an account's unique name. */
export function identityIdOf(uniqueName: string): string {
  const hex = createHash('sha1').update(uniqueName.toLowerCase()).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export class AdoPullRequestReviews {
  /** Most changes a page holds whatever `$top` asks (the service: 2000; default page 100). */
  maxChangesPage = 2000;
  private nextThreadId = 600;
  private ticks = 0;

  constructor(private readonly host: AdoReviewHost) {}

  /**
   * A thread by someone else (by default not the service's identity), active unless `status`
   * says otherwise; `system: true` plays the service's own note (no status, a system comment).
   */
  addThread(pr: AdoPullRequestState, content: string, opts: AdoThreadOptions = {}): number {
    const context = opts.filePath ? { filePath: opts.filePath, rightFileStart: { line: opts.line ?? 1, offset: 1 }, rightFileEnd: { line: opts.line ?? 1, offset: 1 } } : null;
    const status = opts.system ? null : (opts.status ?? 'active');
    const thread = this.store(pr, content, opts.uniqueName ?? 'ana@acme.example', context, status, opts.publishedDate);
    if (opts.system) thread.comments[0]!.commentType = SYSTEM_COMMENT;
    return thread.id;
  }

  /** A reply in a thread. Answers the comment's id (ids restart per thread). */
  addReply(pr: AdoPullRequestState, threadId: number, content: string, opts: { uniqueName?: string; publishedDate?: string } = {}): number {
    const thread = pr.threads.find((t) => t.id === threadId);
    if (!thread) throw new Error(`no thread ${threadId}`);
    const id = Math.max(0, ...thread.comments.map((c) => c.id)) + 1;
    thread.comments.push({ id, parentCommentId: 1, content, uniqueName: opts.uniqueName ?? 'ana@acme.example', isDeleted: false, commentType: TEXT_COMMENT, publishedDate: opts.publishedDate ?? this.tick() });
    return id;
  }

  /** The iterations, a new one first when the head moved since the last. */
  iterationsOf(pr: AdoPullRequestState): AdoIterationState[] {
    const source = shaOf(pr.code, 'head');
    const last = pr.iterations.at(-1);
    if (!last || last.source !== source) {
      const target = shaOf(pr.code, 'base');
      let common = target;
      try {
        if (pr.code && source !== ZERO_SHA && target !== ZERO_SHA) common = mergeBaseOf(pr.code);
      } catch {
        // unrelated histories: the target stands in
      }
      pr.iterations.push({ id: pr.iterations.length + 1, source, target, common });
    }
    return pr.iterations;
  }

  /** `rest` is the path after `pullRequests/{id}/`. */
  route(req: RecordedRequest, pr: AdoPullRequestState, rest: string[]): StandInResponse {
    const [resource, id, sub, subId] = rest.map((s) => s);
    if (resource?.toLowerCase() === 'iterations') return this.iterations(req, pr, id, sub);
    if (resource?.toLowerCase() !== 'threads') return notFound();
    if (id === undefined && req.method === 'GET') {
      const value = pr.threads.map((t) => this.renderThread(t));
      return json(200, { value, count: value.length });
    }
    if (id === undefined && req.method === 'POST') return this.createThread(req, pr);
    const thread = pr.threads.find((t) => t.id === Number(id));
    if (!thread) return notFound({ message: `TF401181: The pull request thread ${id} was not found.` });
    if (sub === undefined && req.method === 'PATCH') {
      const status = statusName((req.body as { status?: unknown } | undefined)?.status);
      if (status) thread.status = status;
      return json(200, this.renderThread(thread));
    }
    if (sub?.toLowerCase() !== 'comments' || subId === undefined) return notFound();
    const comment = thread.comments.find((c) => c.id === Number(subId));
    if (!comment) return notFound({ message: `TF401182: The comment ${subId} was not found.` });
    if (req.method === 'PATCH') {
      const content = (req.body as { content?: unknown } | undefined)?.content;
      if (typeof content !== 'string') return json(400, { message: 'The comment content is missing.' });
      comment.content = content;
      return json(200, this.renderComment(comment));
    }
    if (req.method === 'DELETE') {
      comment.isDeleted = true;
      return { status: 204 };
    }
    return notFound();
  }

  /** `GET repositories/{repo}/items`. */
  item(req: RecordedRequest): StandInResponse {
    const path = req.query.get('path') ?? '';
    const version = req.query.get('versionDescriptor.version') ?? '';
    const bytes = this.host.repositories().map((repo) => fileBytes(repo, version, path.replace(/^\/+/, ''))).find((b) => b !== null) ?? null;
    if (!path.startsWith('/') || bytes === null) {
      return notFound({
        message: `TF401174: The item '${path}' could not be found in the repository '${this.host.repository}' at the version specified by '<Commit: ${version}>'.`,
        typeKey: 'GitItemNotFoundException',
      });
    }
    const binary = bytes.includes(0);
    const content = req.query.get('includeContent') === 'true' ? (binary ? bytes.toString('base64') : bytes.toString('utf8')) : undefined;
    return json(200, { objectId: createHash('sha1').update(bytes).digest('hex'), gitObjectType: 'blob', commitId: version, path, content, contentMetadata: { encoding: 65001, ...(binary ? { isBinary: true } : {}) } });
  }

  private iterations(req: RecordedRequest, pr: AdoPullRequestState, id: string | undefined, sub: string | undefined): StandInResponse {
    const iterations = this.iterationsOf(pr);
    if (id === undefined) {
      const value = iterations.map((it) => ({ id: it.id, sourceRefCommit: { commitId: it.source }, targetRefCommit: { commitId: it.target }, commonRefCommit: { commitId: it.common } }));
      return json(200, { value, count: value.length });
    }
    const iteration = iterations.find((it) => it.id === Number(id));
    if (!iteration || sub?.toLowerCase() !== 'changes') return notFound({ message: `The iteration ${id} does not exist.` });
    const all = pr.code ? changedFiles({ repository: pr.code.repository, baseRef: iteration.common, headRef: iteration.source }) : [];
    const top = Math.min(this.maxChangesPage, Number(req.query.get('$top')) || 100);
    const skip = Number(req.query.get('$skip')) || 0;
    const more = skip + top < all.length;
    return json(200, { changeEntries: all.slice(skip, skip + top).map((f, i) => renderChange(f, skip + i + 1)), nextSkip: more ? skip + top : 0, nextTop: more ? top : 0 });
  }

  private createThread(req: RecordedRequest, pr: AdoPullRequestState): StandInResponse {
    const body = (req.body ?? {}) as { comments?: { content?: unknown; commentType?: unknown }[]; threadContext?: Record<string, unknown> | null; status?: unknown };
    const first = body.comments?.[0];
    if (typeof first?.content !== 'string' || first.content === '') return json(400, { message: 'A thread must have at least one comment with content.' });
    const context = body.threadContext ?? null;
    if (context && !validContext(context)) return json(400, { message: 'Invalid argument value.\r\nParameter name: threadContext', typeKey: 'InvalidArgumentValueException' });
    const thread = this.store(pr, first.content, this.host.uniqueName, context, statusName(body.status) ?? 'active');
    return json(200, this.renderThread(thread));
  }

  private store(pr: AdoPullRequestState, content: string, uniqueName: string, context: Record<string, unknown> | null, status: string | null, publishedDate = this.tick()): AdoThreadState {
    const comment: AdoThreadCommentState = { id: 1, parentCommentId: 0, content, uniqueName, isDeleted: false, commentType: TEXT_COMMENT, publishedDate };
    const thread: AdoThreadState = { id: this.nextThreadId++, status, threadContext: context, comments: [comment] };
    pr.threads.push(thread);
    return thread;
  }

  private renderThread(t: AdoThreadState): Record<string, unknown> {
    const published = t.comments[0]?.publishedDate;
    return { id: t.id, ...(t.status !== null ? { status: t.status } : {}), threadContext: t.threadContext, comments: t.comments.map((c) => this.renderComment(c)), isDeleted: false, publishedDate: published, lastUpdatedDate: t.comments.at(-1)?.publishedDate ?? published };
  }

  /** Times a minute apart from 2026-01-01, in the order things happen. */
  private tick(): string {
    return new Date(Date.UTC(2026, 0, 1) + this.ticks++ * 60_000).toISOString();
  }

  private renderComment(c: AdoThreadCommentState): Record<string, unknown> {
    return {
      id: c.id,
      parentCommentId: c.parentCommentId,
      author: { id: identityIdOf(c.uniqueName), uniqueName: c.uniqueName, displayName: c.uniqueName.split('@')[0] },
      content: c.isDeleted ? '' : c.content,
      isDeleted: c.isDeleted,
      commentType: c.commentType === TEXT_COMMENT ? 'text' : 'system',
      publishedDate: c.publishedDate,
      lastUpdatedDate: c.publishedDate,
    };
  }
}

function validContext(context: Record<string, unknown>): boolean {
  const position = (p: unknown): p is { line: number; offset: number } =>
    typeof p === 'object' && p !== null && Number.isInteger((p as { line?: unknown }).line) && (p as { line: number }).line >= 1 && Number.isInteger((p as { offset?: unknown }).offset) && (p as { offset: number }).offset >= 1;
  const start = context['rightFileStart'];
  const end = context['rightFileEnd'];
  return typeof context['filePath'] === 'string' && context['filePath'].startsWith('/') && position(start) && position(end) && end.line >= start.line;
}

function statusName(status: unknown): string | null {
  if (typeof status === 'number') return STATUS_NAMES[status] ?? null;
  return typeof status === 'string' && STATUS_NAMES.includes(status) ? status : null;
}

function renderChange(f: StandInChangedFile, changeId: number): Record<string, unknown> {
  const changeType = f.status === 'added' ? 'add' : f.status === 'deleted' ? 'delete' : f.status === 'renamed' ? (f.patch === null && !f.binary ? 'rename' : 'edit, rename') : 'edit';
  return {
    changeTrackingId: changeId,
    changeId,
    item: { objectId: createHash('sha1').update(f.path).digest('hex'), path: `/${f.path}` },
    changeType,
    ...(f.previousPath ? { originalPath: `/${f.previousPath}` } : {}),
  };
}
