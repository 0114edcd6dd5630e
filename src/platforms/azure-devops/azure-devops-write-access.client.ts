import type { RepoConfig } from '../../config/service-config.js';
import { basicAuth, TrackerHttp, type TrackerHttpOptions } from '../http/tracker-http.js';
import { Platform } from '../platform.js';
import { clientForRepository, inRepository, refusal } from '../pull-request-errors.js';
import { type AuthorRef, describeAuthor, type HostVerdict, type WriteAccessLookup } from '../write-access-lookup.js';
import { azureDevOpsRepository, type AzureDevOpsPullRequestsOptions } from './azure-devops-pull-requests.client.js';
import { parseAzureDevOpsRepoUrl } from './azure-devops-repo-url.js';

/** The "Git Repositories" security namespace and its Contribute bit (push to the repository). */
export const GIT_REPOSITORIES_NAMESPACE = '2e9eb7ed-3c0a-47d4-87c1-0ffdd275fd87';
export const CONTRIBUTE = 4;

const API = { 'api-version': '7.1' };

interface AdoIdentity {
  id?: string;
  /** A string (`Microsoft.IdentityModel.Claims.ClaimsIdentity;…`) in REST answers; an object in some SDK shapes. */
  descriptor?: string | { identityType?: string; identifier?: string };
  providerDisplayName?: string;
  properties?: Record<string, { $value?: unknown } | undefined>;
}
interface AdoAce {
  descriptor?: string;
  allow?: number;
  deny?: number;
  extendedInfo?: { effectiveAllow?: number; effectiveDeny?: number };
}
interface AdoAcl {
  acesDictionary?: Record<string, AdoAce>;
}

/**
 * Write access on Azure DevOps: effective Contribute on the repository, as the security service
 * computes it (the author's own entries and those of every group they are in, inherited from the
 * project unless inheritance is off; deny wins). Three reads with the repository's PAT (scopes
 * Identity: Read, Security: Manage, Code: Read):
 * 1. the author's identity descriptor: `GET {vssps}/_apis/identities?identityIds=` (the payload's
 *    identity id) or `?searchFilter=General&filterValue=` (the uniqueName);
 * 2. the repository's and its project's ids: `GET {org}/{project}/_apis/git/repositories/{repo}`;
 * 3. `GET {org}/_apis/accesscontrollists/{Git namespace}?token=repoV2/{projectId}/{repoId}
 *    &descriptors=…&includeExtendedInfo=true`: the entry's `extendedInfo.effectiveAllow/Deny`.
 */
export class AzureDevOpsWriteAccessClient implements WriteAccessLookup {
  readonly platform = Platform.AzureDevOps;
  private readonly http: TrackerHttp;
  /** The identity service: vssps.dev.azure.com/{org} on the cloud, the collection itself on a server. */
  private readonly identities: TrackerHttp;
  private readonly repoPath: string;
  private readonly repository: string;

  constructor(options: AzureDevOpsPullRequestsOptions) {
    ({ repoPath: this.repoPath, repository: this.repository, http: this.http } = azureDevOpsRepository(options));
    const apiBase = options.apiUrl ?? parseAzureDevOpsRepoUrl(options.repoUrl).organizationUrl;
    const identityBase = identityBaseOf(apiBase);
    this.identities = identityBase === trimSlash(apiBase) ? this.http : new TrackerHttp(Platform.AzureDevOps, identityBase, basicAuth('', options.pat), options.http);
  }

  static fromConfig(repo: RepoConfig, http?: TrackerHttpOptions): AzureDevOpsWriteAccessClient {
    return clientForRepository(Platform.AzureDevOps, repo, (token) => new AzureDevOpsWriteAccessClient({ repoUrl: repo.url, apiUrl: repo.api_url, pat: token, repository: repo.name, http }));
  }

  check(author: AuthorRef): Promise<HostVerdict> {
    return inRepository(this.repository, async () => {
      const who = describeAuthor(author);
      const found = await this.identityOf(author);
      if (found === 'none') return { granted: false, reason: `${who} is not an Azure DevOps identity of this organization` };
      if (found === 'ambiguous') return { granted: false, reason: `${who} names more than one Azure DevOps identity` };
      const repo = await this.http.request<{ id?: string; project?: { id?: string } }>({ method: 'GET', path: this.repoPath, query: API });
      const repositoryId = repo.body.id;
      const projectId = repo.body.project?.id;
      if (!repositoryId || !projectId) throw refusal(this.platform, this.repository, 'Azure DevOps answered the repository without its id or project id', repo.status);
      const acl = await this.http.request<{ value?: AdoAcl[] }>({
        method: 'GET',
        path: `_apis/accesscontrollists/${GIT_REPOSITORIES_NAMESPACE}`,
        query: { token: `repoV2/${projectId}/${repositoryId}`, descriptors: found, includeExtendedInfo: true, ...API },
      });
      const { allow, deny } = effectiveBits(acl.body.value ?? [], found);
      if (deny & CONTRIBUTE) return { granted: false, reason: `${who} is denied Contribute on ${this.repository}` };
      if (allow & CONTRIBUTE) return { granted: true };
      return { granted: false, reason: `${who} has no Contribute permission on ${this.repository}` };
    });
  }

  /** The author's identity descriptor; by id when the payload has it (exact), else by uniqueName. */
  private async identityOf(author: AuthorRef): Promise<string | 'none' | 'ambiguous'> {
    let candidates: AdoIdentity[];
    if (author.id) {
      const res = await this.identities.request<{ value?: (AdoIdentity | null)[] }>({ method: 'GET', path: '_apis/identities', query: { identityIds: author.id, ...API } });
      candidates = (res.body.value ?? []).filter((i): i is AdoIdentity => i !== null);
    } else if (author.login) {
      const res = await this.identities.request<{ value?: (AdoIdentity | null)[] }>({
        method: 'GET',
        path: '_apis/identities',
        query: { searchFilter: 'General', filterValue: author.login, ...API },
      });
      const all = (res.body.value ?? []).filter((i): i is AdoIdentity => i !== null);
      // General also matches display names: keep the account the uniqueName names when it is among them.
      const exact = all.filter((i) => accountOf(i)?.toLowerCase() === author.login?.toLowerCase());
      candidates = exact.length > 0 ? exact : all;
    } else {
      return 'none';
    }
    const descriptors = [...new Set(candidates.map(descriptorOf).filter((d): d is string => d !== null))];
    if (descriptors.length === 0) return 'none';
    return descriptors.length === 1 ? (descriptors[0] as string) : 'ambiguous';
  }
}

/**
 * Where the identity service of an organization or collection answers: `https://dev.azure.com/
 * {org}` → `https://vssps.dev.azure.com/{org}`, `https://{org}.visualstudio.com` →
 * `https://{org}.vssps.visualstudio.com`; an Azure DevOps Server (or any other host) serves it
 * under the collection URL itself.
 */
export function identityBaseOf(apiBase: string): string {
  const url = new URL(apiBase);
  const host = url.hostname.toLowerCase();
  if (host === 'dev.azure.com') {
    const organization = url.pathname.split('/').filter(Boolean)[0] ?? '';
    return `${url.protocol}//vssps.dev.azure.com/${organization}`;
  }
  const legacy = /^([^.]+)\.visualstudio\.com$/.exec(host);
  if (legacy) return `${url.protocol}//${legacy[1]}.vssps.visualstudio.com`;
  return trimSlash(apiBase);
}

/** The effective bits of the ACE for `descriptor` (extended info; the ACE's own bits without it). */
function effectiveBits(acls: AdoAcl[], descriptor: string): { allow: number; deny: number } {
  let allow = 0;
  let deny = 0;
  for (const acl of acls) {
    for (const [key, ace] of Object.entries(acl.acesDictionary ?? {})) {
      if (key.toLowerCase() !== descriptor.toLowerCase() && ace.descriptor?.toLowerCase() !== descriptor.toLowerCase()) continue;
      allow |= ace.extendedInfo?.effectiveAllow ?? ace.allow ?? 0;
      deny |= ace.extendedInfo?.effectiveDeny ?? ace.deny ?? 0;
    }
  }
  return { allow, deny };
}

function descriptorOf(identity: AdoIdentity): string | null {
  const d = identity.descriptor;
  if (typeof d === 'string') return d || null;
  if (d?.identityType && d.identifier) return `${d.identityType};${d.identifier}`;
  return null;
}

function accountOf(identity: AdoIdentity): string | null {
  const account = identity.properties?.['Account']?.$value;
  return typeof account === 'string' ? account : null;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
