import type { GitLabMergeRequestState } from './gitlab-merge-requests.js';
import { addedLines, changedFiles, mergeBaseOf, shaOf, shownLines, type StandInChangedFile } from './pull-request-code.js';
import { json, notFound, type RecordedRequest, type StandInResponse } from './stand-in-server.js';

/**
 * The review side of the GitLab stand-in's merge requests, with GitLab's answers:
 * - `GET merge_requests/:iid/diffs`: per file `old_path`, `new_path`, `new_file`, `renamed_file`,
 *   `deleted_file` and the unified `diff` (hunks only; git's "Binary files … differ" for a binary
 *   file), paged with `X-Next-Page`, from the merge base to the head (pull-request-code.ts);
 * - `POST merge_requests/:iid/discussions {body, position?}`: a position needs
 *   `position_type: text`, the merge request's `diff_refs` (base, start, head), a changed file's
 *   `new_path` and `old_path`, and a `new_line` the diff adds (or, with `old_line`, one its hunks
 *   show); anything else is GitLab's 400 "Note {:line_code=>[…]}" and nothing is stored;
 * - `GET discussions`, `GET`/`POST notes` (newest first unless `sort=asc`), `PUT`/`DELETE
 *   notes/:id` (204); a discussion whose last note is deleted is gone. Notes record their author
 *   and `created_at` (a clock a minute a tick from 2026-01-01, or the test's time);
 * - threads: a discussion started with `POST discussions` (or `startThread`) is resolvable, a
 *   plain note (`POST notes`, `addNote`) and GitLab's own activity notes are not; `PUT
 *   discussions/:id?resolved=true|false` resolves or reopens every note of it;
 * - reviewers and their state: gitlab-merge-request-reviewers.ts.
 */

export interface GitLabNoteState {
  id: number;
  body: string;
  username: string;
  system: boolean;
  position: Record<string, unknown> | null;
  createdAt: string;
  /** Notes of a thread can be resolved; plain comments and system notes cannot. */
  resolvable: boolean;
  resolved: boolean;
}

export interface GitLabDiscussionState {
  id: string;
  individual: boolean;
  notes: GitLabNoteState[];
}

export interface GitLabReviewHost {
  readonly username: string;
  paged(req: RecordedRequest, items: unknown[]): StandInResponse;
}

const INVALID_POSITION = { message: '400 Bad request - Note {:line_code=>["can\'t be blank", "must be a valid line code"]}' };

export interface NoteOptions {
  username?: string;
  createdAt?: string;
}

export class GitLabMergeRequestReviews {
  private nextNoteId = 3000;
  private ticks = 0;

  constructor(private readonly host: GitLabReviewHost) {}

  /** A plain note by someone else (by default not the service's account); `system: true` plays GitLab's own activity. */
  addNote(mr: GitLabMergeRequestState, body: string, opts: NoteOptions & { system?: boolean } = {}): number {
    const note = this.note(body, opts, { system: opts.system ?? false, position: null, resolvable: false });
    mr.discussions.push({ id: discussionId(note.id), individual: true, notes: [note] });
    return note.id;
  }

  /** A resolvable thread by someone else, on a file's new line when `path` is given. Answers the discussion id. */
  startThread(mr: GitLabMergeRequestState, body: string, opts: NoteOptions & { path?: string; line?: number } = {}): string {
    const position = opts.path ? { position_type: 'text', old_path: opts.path, new_path: opts.path, old_line: null, new_line: opts.line ?? 1 } : null;
    const note = this.note(body, opts, { system: false, position, resolvable: true });
    const id = discussionId(note.id);
    mr.discussions.push({ id, individual: false, notes: [note] });
    return id;
  }

  /** A reply in a thread. */
  reply(mr: GitLabMergeRequestState, discussion: string, body: string, opts: NoteOptions = {}): number {
    const thread = mr.discussions.find((d) => d.id === discussion && !d.individual);
    if (!thread) throw new Error(`no thread ${discussion}`);
    const note = this.note(body, opts, { system: false, position: thread.notes[0]?.position ?? null, resolvable: true });
    thread.notes.push(note);
    return note.id;
  }

  /** Resolves (or reopens) every note of a thread, as the thread's button does. */
  resolve(mr: GitLabMergeRequestState, discussion: string, resolved = true): void {
    const thread = mr.discussions.find((d) => d.id === discussion && !d.individual);
    if (!thread) throw new Error(`no thread ${discussion}`);
    for (const note of thread.notes) if (note.resolvable) note.resolved = resolved;
  }

  notesOf(mr: GitLabMergeRequestState): GitLabNoteState[] {
    return mr.discussions.flatMap((d) => d.notes);
  }

  /** `rest` is the path after `merge_requests/:iid/`. */
  route(req: RecordedRequest, mr: GitLabMergeRequestState, rest: string[]): StandInResponse {
    const [resource, id] = rest;
    if (resource === 'diffs' && rest.length === 1 && req.method === 'GET') return this.host.paged(req, changedFiles(mr.code).map(renderDiff));
    if (resource === 'discussions' && rest.length === 1) {
      if (req.method === 'GET') return this.host.paged(req, mr.discussions.map((d) => renderDiscussion(d)));
      if (req.method === 'POST') return this.discuss(req, mr);
    }
    if (resource === 'discussions' && rest.length === 2 && req.method === 'PUT') return this.resolveByApi(req, mr, id!);
    if (resource !== 'notes') return notFound({ error: '404 Not Found' });
    if (rest.length === 1 && req.method === 'GET') {
      const notes = this.notesOf(mr);
      return this.host.paged(req, (req.query.get('sort') === 'asc' ? notes : [...notes].reverse()).map(renderNote));
    }
    if (rest.length === 1 && req.method === 'POST') {
      const body = (req.body as { body?: unknown } | undefined)?.body;
      if (typeof body !== 'string' || body === '') return json(400, { message: { note: ["can't be blank"] } });
      const note = this.store(mr, body, null, true);
      return json(201, renderNote(note));
    }
    const discussion = mr.discussions.find((d) => d.notes.some((n) => n.id === Number(id)));
    const note = discussion?.notes.find((n) => n.id === Number(id));
    if (!discussion || !note || rest.length !== 2) return notFound({ message: '404 Not found' });
    if (req.method === 'PUT') {
      const body = (req.body as { body?: unknown } | undefined)?.body;
      if (typeof body !== 'string' || body === '') return json(400, { message: { note: ["can't be blank"] } });
      note.body = body;
      return json(200, renderNote(note));
    }
    if (req.method === 'DELETE') {
      discussion.notes = discussion.notes.filter((n) => n !== note);
      if (discussion.notes.length === 0) mr.discussions.splice(mr.discussions.indexOf(discussion), 1);
      return { status: 204 };
    }
    return notFound({ error: '404 Not Found' });
  }

  private discuss(req: RecordedRequest, mr: GitLabMergeRequestState): StandInResponse {
    const { body, position } = (req.body ?? {}) as { body?: unknown; position?: Record<string, unknown> };
    if (typeof body !== 'string' || body === '') return json(400, { error: 'body is missing' });
    if (position !== undefined && !this.validPosition(mr, position)) return json(400, INVALID_POSITION);
    const note = this.store(mr, body, position ?? null, false);
    return json(201, renderDiscussion(mr.discussions.find((d) => d.notes.includes(note))!));
  }

  private resolveByApi(req: RecordedRequest, mr: GitLabMergeRequestState, id: string): StandInResponse {
    const discussion = mr.discussions.find((d) => d.id === id);
    if (!discussion) return notFound({ message: '404 Discussion Not Found' });
    const wanted = req.query.get('resolved') ?? String((req.body as { resolved?: unknown } | undefined)?.resolved ?? '');
    if (wanted !== 'true' && wanted !== 'false') return json(400, { error: 'resolved is missing' });
    if (discussion.individual) return json(400, { message: '400 Bad request - Discussion is not resolvable' });
    this.resolve(mr, id, wanted === 'true');
    return json(200, renderDiscussion(discussion));
  }

  private validPosition(mr: GitLabMergeRequestState, p: Record<string, unknown>): boolean {
    if (!mr.code || p['position_type'] !== 'text') return false;
    const refs = diffRefsOf(mr);
    if (p['base_sha'] !== refs.base_sha || p['start_sha'] !== refs.start_sha || p['head_sha'] !== refs.head_sha) return false;
    const file = changedFiles(mr.code).find((f) => f.path === p['new_path']);
    if (!file || file.status === 'deleted' || (file.previousPath ?? file.path) !== p['old_path']) return false;
    const line = p['new_line'];
    if (typeof line !== 'number') return false;
    return p['old_line'] === undefined ? addedLines(file.patch).includes(line) : shownLines(file.patch).has(line);
  }

  /** A note by the token's account; a discussion it starts is a resolvable thread. */
  private store(mr: GitLabMergeRequestState, body: string, position: Record<string, unknown> | null, individual: boolean): GitLabNoteState {
    const note = this.note(body, { username: this.host.username }, { system: false, position, resolvable: !individual });
    mr.discussions.push({ id: discussionId(note.id), individual, notes: [note] });
    return note;
  }

  private note(body: string, opts: NoteOptions, kind: Pick<GitLabNoteState, 'system' | 'position' | 'resolvable'>): GitLabNoteState {
    const createdAt = opts.createdAt ?? new Date(Date.UTC(2026, 0, 1) + this.ticks++ * 60_000).toISOString();
    return { id: this.nextNoteId++, body, username: opts.username ?? 'gitlab-user', createdAt, resolved: false, ...kind };
  }
}

/** GitLab's `diff_refs`: the merge base, the target's tip, the head. */
export function diffRefsOf(mr: GitLabMergeRequestState): { base_sha: string; start_sha: string; head_sha: string } {
  const base = shaOf(mr.code, 'base');
  const head = shaOf(mr.code, 'head');
  let mergeBase = base;
  try {
    if (mr.code) mergeBase = mergeBaseOf(mr.code);
  } catch {
    // unrelated histories or a ref gone: the target's tip stands in
  }
  return { base_sha: mergeBase, start_sha: base, head_sha: head };
}

function discussionId(noteId: number): string {
  return noteId.toString(16).padStart(40, 'd');
}

function renderDiff(f: StandInChangedFile): Record<string, unknown> {
  return {
    old_path: f.previousPath ?? f.path,
    new_path: f.path,
    a_mode: f.status === 'added' ? '0' : '100644',
    b_mode: f.status === 'deleted' ? '0' : '100644',
    new_file: f.status === 'added',
    renamed_file: f.status === 'renamed',
    deleted_file: f.status === 'deleted',
    generated_file: false,
    diff: f.binary ? `Binary files a/${f.previousPath ?? f.path} and b/${f.path} differ\n` : f.patch === null ? '' : `${f.patch}\n`,
  };
}

function renderDiscussion(d: GitLabDiscussionState): Record<string, unknown> {
  return { id: d.id, individual_note: d.individual, notes: d.notes.map(renderNote) };
}

function renderNote(n: GitLabNoteState): Record<string, unknown> {
  return {
    id: n.id,
    type: n.position ? 'DiffNote' : n.resolvable ? 'DiscussionNote' : null,
    body: n.body,
    author: { username: n.username },
    created_at: n.createdAt,
    updated_at: n.createdAt,
    system: n.system,
    noteable_type: 'MergeRequest',
    resolvable: n.resolvable,
    ...(n.resolvable ? { resolved: n.resolved } : {}),
    ...(n.position ? { position: n.position } : {}),
  };
}
