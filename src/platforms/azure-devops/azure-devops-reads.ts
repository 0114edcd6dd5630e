import type { TrackerHttp } from '../http/tracker-http.js';
import { Platform } from '../platform.js';
import { refusal } from '../pull-request-errors.js';

/** What several Azure DevOps clients read alike: who the PAT is, and a pull request's threads. */

export interface AdoComment {
  id: number;
  parentCommentId?: number;
  content?: string;
  isDeleted?: boolean;
  /** `text`, `system`, `codeChange` (7.1 answers names; older servers numbers: 1 text, 2 codeChange, 3 system). */
  commentType?: string | number;
  publishedDate?: string;
  author?: { id?: string; uniqueName?: string } | null;
}
export interface AdoThread {
  id: number;
  isDeleted?: boolean;
  /** `active`, `pending`, `fixed`, `wontFix`, `closed`, `byDesign`; absent on the host's own threads. */
  status?: string | number;
  threadContext?: { filePath?: string; rightFileStart?: { line?: number } | null } | null;
  comments?: AdoComment[];
}

export interface AdoIdentity {
  /** The identity id pull-request comments carry as `author.id`. */
  id: string;
  /** The account (`properties.Account`), what comments carry as `author.uniqueName`. */
  uniqueName: string | null;
}

/** The PAT's identity, from `GET {org}/_apis/connectionData` (`authenticatedUser`). */
export async function azureDevOpsIdentity(http: TrackerHttp, repository: string): Promise<AdoIdentity> {
  const res = await http.request<{ authenticatedUser?: { id?: string; properties?: { Account?: { $value?: string } } } }>({
    method: 'GET', path: '_apis/connectionData', query: { 'api-version': '7.1-preview' },
  });
  const user = res.body?.authenticatedUser;
  if (!user?.id) throw refusal(Platform.AzureDevOps, repository, 'Azure DevOps did not say which identity the token is (connectionData)', res.status);
  return { id: user.id, uniqueName: user.properties?.Account?.$value ?? null };
}

/** The pull request's threads but deleted ones (the list is not paged). */
export async function azureDevOpsThreads(http: TrackerHttp, pullRequestPath: string): Promise<AdoThread[]> {
  const res = await http.request<{ value?: AdoThread[] }>({ method: 'GET', path: `${pullRequestPath}/threads`, query: { 'api-version': '7.1' } });
  return (res.body?.value ?? []).filter((t) => !t.isDeleted);
}

/** A thread's comments but deleted ones. */
export function liveComments(thread: AdoThread): AdoComment[] {
  return (thread.comments ?? []).filter((c) => !c.isDeleted);
}
