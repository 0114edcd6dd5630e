import type { TrackerHttp } from '../http/tracker-http.js';
import { diffLines } from '../line-diff.js';
import type { ChangedFileStatus, PullRequestDiff, PullRequestFile } from '../pull-request-review.js';

/**
 * A pull request's diff on Azure DevOps, which lists the changed files of an iteration
 * (`…/iterations/{last}/changes`, paged with `$top`/`$skip` until `nextSkip` is 0) with their
 * change types but without lines: each changed text file is read at the merge base (the
 * iteration's `commonRefCommit`, else its target commit) and at the head through the Items API,
 * and the two are diffed here (line-diff.ts). Binary files, files over 1 MB, and the files past
 * the 500th get no lines and no patch.
 */

interface AdoCommitRef {
  commitId: string;
}
export interface AdoIteration {
  id: number;
  sourceRefCommit?: AdoCommitRef;
  targetRefCommit?: AdoCommitRef;
  commonRefCommit?: AdoCommitRef;
}
interface AdoChangeEntry {
  changeType?: string;
  item?: { path?: string; isFolder?: boolean; gitObjectType?: string };
  originalPath?: string;
  sourceServerItem?: string;
}
interface AdoItem {
  content?: string;
  contentMetadata?: { isBinary?: boolean };
}

const API = { 'api-version': '7.1' };
const CHANGES_PAGE = 1000;
const MAX_PAGES = 100;
const MAX_CHARS = 1_000_000;
const MAX_FILES_DIFFED = 500;
const PARALLEL_READS = 4;

export class AzureDevOpsPullRequestDiffReader {
  constructor(
    private readonly http: TrackerHttp,
    /** `{project}/_apis/git/repositories/{repo}`. */
    private readonly repoPath: string,
  ) {}

  /** The pull request's iterations, oldest first; the last one is what the pull request shows now. */
  async lastIteration(pullRequestId: number): Promise<AdoIteration | null> {
    const res = await this.http.request<{ value?: AdoIteration[] }>({ method: 'GET', path: `${this.repoPath}/pullRequests/${pullRequestId}/iterations`, query: API });
    return res.body.value?.at(-1) ?? null;
  }

  async read(pullRequestId: number, iteration: AdoIteration): Promise<PullRequestDiff> {
    const headSha = iteration.sourceRefCommit?.commitId ?? '';
    const baseSha = iteration.targetRefCommit?.commitId ?? '';
    const mergeBase = iteration.commonRefCommit?.commitId ?? baseSha;
    const entries = await this.changes(pullRequestId, iteration.id);
    const files = await inParallel(entries, PARALLEL_READS, (entry, index) => this.fileOf(entry, index < MAX_FILES_DIFFED, mergeBase, headSha));
    return { headSha, baseSha, files, truncated: false };
  }

  private async changes(pullRequestId: number, iterationId: number): Promise<AdoChangeEntry[]> {
    const entries: AdoChangeEntry[] = [];
    let skip = 0;
    for (let page = 0; page < MAX_PAGES; page++) {
      const res = await this.http.request<{ changeEntries?: AdoChangeEntry[]; nextSkip?: number }>({
        method: 'GET',
        path: `${this.repoPath}/pullRequests/${pullRequestId}/iterations/${iterationId}/changes`,
        query: { $top: CHANGES_PAGE, $skip: skip, ...API },
      });
      entries.push(...(res.body.changeEntries ?? []));
      const next = res.body.nextSkip ?? 0;
      if (!(next > skip)) break;
      skip = next;
    }
    return entries.filter((e) => typeof e.item?.path === 'string' && !e.item.isFolder && (e.item.gitObjectType ?? 'blob') === 'blob');
  }

  private async fileOf(entry: AdoChangeEntry, diffed: boolean, mergeBase: string, headSha: string): Promise<PullRequestFile> {
    const path = withoutSlash(entry.item!.path!);
    const status = statusOf(entry.changeType ?? '');
    const previous = entry.originalPath ?? entry.sourceServerItem ?? null;
    const previousPath = status === 'renamed' && previous !== null ? withoutSlash(previous) : null;
    const file: PullRequestFile = { path, previousPath, status, changedLines: [], patch: null };
    if (!diffed || status === 'deleted') return file;
    const after = await this.text(path, headSha);
    const before = status === 'added' ? '' : await this.text(previousPath ?? path, mergeBase);
    if (after === null || before === null) return file;
    const diff = diffLines(before, after);
    return { ...file, changedLines: diff.changed, patch: diff.hunks === '' ? null : diff.hunks };
  }

  /** The file's text at a commit; null when it is binary, too large or not there. */
  private async text(path: string, commit: string): Promise<string | null> {
    const res = await this.http.request<AdoItem | string>({
      method: 'GET',
      path: `${this.repoPath}/items`,
      query: { path: `/${path}`, 'versionDescriptor.version': commit, 'versionDescriptor.versionType': 'commit', includeContent: true, ...API },
      passStatuses: [404],
    });
    if (res.status === 404 || typeof res.body !== 'object' || res.body === null) return null;
    const content = res.body.content;
    if (typeof content !== 'string' || res.body.contentMetadata?.isBinary === true || content.includes('\0') || content.length > MAX_CHARS) return null;
    return content;
  }
}

/** `edit`, `add`, `delete`, `rename`, or a combination (`edit, rename`). */
function statusOf(changeType: string): ChangedFileStatus {
  const kinds = changeType.toLowerCase().split(/[\s,]+/);
  if (kinds.includes('delete')) return 'deleted';
  if (kinds.includes('add')) return 'added';
  if (kinds.includes('rename')) return 'renamed';
  return 'modified';
}

function withoutSlash(path: string): string {
  return path.replace(/^\/+/, '');
}

async function inParallel<T, R>(items: readonly T[], width: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return results;
}
