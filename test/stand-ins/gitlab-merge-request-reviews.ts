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
 *   notes/:id` (204); a discussion whose last note is deleted is gone. Notes record their author.
 */

export interface GitLabNoteState {
  id: number;
  body: string;
  username: string;
  system: boolean;
  position: Record<string, unknown> | null;
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

export class GitLabMergeRequestReviews {
  private nextNoteId = 3000;

  constructor(private readonly host: GitLabReviewHost) {}

  /** A note by someone else (by default not the service's account), optionally positioned. */
  addNote(mr: GitLabMergeRequestState, body: string, opts: { username?: string; system?: boolean } = {}): number {
    const note = { id: this.nextNoteId++, body, username: opts.username ?? 'gitlab-user', system: opts.system ?? false, position: null };
    mr.discussions.push({ id: discussionId(note.id), individual: true, notes: [note] });
    return note.id;
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

  private store(mr: GitLabMergeRequestState, body: string, position: Record<string, unknown> | null, individual: boolean): GitLabNoteState {
    const note: GitLabNoteState = { id: this.nextNoteId++, body, username: this.host.username, system: false, position };
    mr.discussions.push({ id: discussionId(note.id), individual, notes: [note] });
    return note;
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
    type: n.position ? 'DiffNote' : null,
    body: n.body,
    author: { username: n.username },
    system: n.system,
    noteable_type: 'MergeRequest',
    ...(n.position ? { position: n.position } : {}),
  };
}
