import { createHash } from 'node:crypto';
import { identityIdOf } from './azure-devops-pull-request-reviews.js';
import { ADO_PROJECT_ID, ADO_REPOSITORY_ID } from './azure-devops-pull-requests.js';
import { json, notFound, type RecordedRequest, type StandInResponse } from './stand-in-server.js';

/** The "Git Repositories" security namespace and its bits the tests use. */
export const GIT_NAMESPACE = '2e9eb7ed-3c0a-47d4-87c1-0ffdd275fd87';
export const GitPermission = { Administer: 1, GenericRead: 2, GenericContribute: 4 } as const;

const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';

export interface AdoIdentityState {
  id: string;
  /** A user's uniqueName, or a group's `[Project]\Name`. */
  name: string;
  displayName: string;
  descriptor: string;
  isGroup: boolean;
  /** Ids of the groups it is a direct member of. */
  memberOf: Set<string>;
}

interface AclState {
  inherit: boolean;
  aces: Map<string, { allow: number; deny: number }>;
}

/**
 * Identities and the Git Repositories security namespace of the Azure DevOps stand-in, at the
 * organization (`/{org}/_apis/…`, where the client's identity base lands for a non-cloud URL):
 * - `GET _apis/identities` with `identityIds=` (a list; `null` for an unknown id, as the service
 *   answers), `searchFilter=General&filterValue=` (users and groups whose uniqueName, account or
 *   display name equals the value, case-insensitively) or `descriptors=`; nothing to search by
 *   is a 400;
 * - `GET _apis/accesscontrollists/{namespace}?token&descriptors&includeExtendedInfo`: the ACL of
 *   the token with the entries of the descriptors asked for; with extended info every asked
 *   descriptor gets an entry (`allow`/`deny` 0 when it has none of its own) whose
 *   `extendedInfo.effectiveAllow/effectiveDeny` is computed as the service does: the identity's
 *   own entries and those of every group it is in (transitively); at each level of the token
 *   (`repoV2/{project}/{repo}` → `repoV2/{project}` → `repoV2`) deny beats allow, a bit decided
 *   on a more specific token is not looked up further, and an ACL with inheritance off stops the
 *   climb. Another namespace is a 404.
 * Requests are counted per endpoint (`calls`), faults included.
 */
export class AdoSecurity {
  readonly identities = new Map<string, AdoIdentityState>();
  private readonly acls = new Map<string, AclState>();

  constructor(private readonly host: { readonly project: string; readonly requests: RecordedRequest[] }) {}

  /** `repoV2/{projectId}`: entries here are inherited by every repository of the project. */
  get projectToken(): string {
    return `repoV2/${ADO_PROJECT_ID}`;
  }

  get repositoryToken(): string {
    return `repoV2/${ADO_PROJECT_ID}/${ADO_REPOSITORY_ID}`;
  }

  /** A user (id as pull request comments carry it: identityIdOf(uniqueName)). */
  addUser(uniqueName: string, displayName = uniqueName.split('@')[0] ?? uniqueName): AdoIdentityState {
    return this.add({ id: identityIdOf(uniqueName), name: uniqueName, displayName, descriptor: `Microsoft.IdentityModel.Claims.ClaimsIdentity;${TENANT}\\${uniqueName}`, isGroup: false, memberOf: new Set() });
  }

  /** A project group (`[Shop]\Contributors`). */
  addGroup(name: string): AdoIdentityState {
    const sid = [...createHash('sha1').update(name).digest()].slice(0, 4).map((b) => String(b)).join('-');
    const full = `[${this.host.project}]\\${name}`;
    return this.add({ id: identityIdOf(full), name: full, displayName: full, descriptor: `Microsoft.TeamFoundation.Identity;S-1-9-1551374245-${sid}`, isGroup: true, memberOf: new Set() });
  }

  addMember(group: AdoIdentityState, member: AdoIdentityState): void {
    member.memberOf.add(group.id);
  }

  /** Sets the identity's own entry on a token (replacing it). */
  setPermission(token: string, identity: AdoIdentityState, bits: { allow?: number; deny?: number }): void {
    this.aclOf(token).aces.set(identity.descriptor, { allow: bits.allow ?? 0, deny: bits.deny ?? 0 });
  }

  setInheritance(token: string, inherit: boolean): void {
    this.aclOf(token).inherit = inherit;
  }

  /** Requests per endpoint so far. */
  get calls(): { identities: number; repository: number; acl: number } {
    const gets = this.host.requests.filter((r) => r.method === 'GET');
    return {
      identities: gets.filter((r) => /\/_apis\/identities$/i.test(r.path)).length,
      repository: gets.filter((r) => /\/_apis\/git\/repositories\/[^/]+$/i.test(r.path)).length,
      acl: gets.filter((r) => /\/_apis\/accesscontrollists\//i.test(r.path)).length,
    };
  }

  /** `rest`: the path after `/{org}/_apis`. */
  route(req: RecordedRequest, rest: string[]): StandInResponse {
    if (!req.query.get('api-version')) return json(400, { message: 'No api-version was supplied for the request.' });
    if (req.method !== 'GET') return notFound();
    const resource = rest[0]?.toLowerCase();
    if (resource === 'identities' && rest.length === 1) return this.readIdentities(req.query);
    if (resource === 'accesscontrollists' && rest.length === 2) return this.queryAcl(rest[1] ?? '', req.query);
    return notFound();
  }

  private readIdentities(query: URLSearchParams): StandInResponse {
    const list = (name: string) => (query.get(name) ?? '').split(',').map((v) => v.trim()).filter(Boolean);
    let value: (AdoIdentityState | null)[];
    if (query.get('identityIds') !== null) {
      value = list('identityIds').map((id) => this.identities.get(id.toLowerCase()) ?? null);
    } else if (query.get('descriptors') !== null) {
      value = list('descriptors').map((d) => this.byDescriptor(d) ?? null);
    } else if (query.get('searchFilter') !== null && query.get('filterValue') !== null) {
      const wanted = (query.get('filterValue') ?? '').toLowerCase();
      value = [...this.identities.values()].filter((i) => i.name.toLowerCase() === wanted || i.displayName.toLowerCase() === wanted);
    } else {
      return json(400, { message: 'One of the following parameters is required: descriptors, identityIds, subjectDescriptors, searchFilter.', typeKey: 'ArgumentException' });
    }
    return json(200, { count: value.length, value: value.map((i) => (i ? this.renderIdentity(i) : null)) });
  }

  private queryAcl(namespace: string, query: URLSearchParams): StandInResponse {
    if (namespace.toLowerCase() !== GIT_NAMESPACE) return notFound({ message: `The security namespace ${namespace} was not found.`, typeKey: 'InvalidSecurityNamespaceIdException' });
    const extended = query.get('includeExtendedInfo')?.toLowerCase() === 'true';
    const asked = (query.get('descriptors') ?? '').split(',').map((d) => d.trim()).filter(Boolean);
    const token = query.get('token');
    const tokens = token === null ? [...this.acls.keys()] : [token];
    const value = tokens.map((t) => {
      const acl = this.acls.get(t);
      const descriptors = asked.length > 0 ? asked : [...(acl?.aces.keys() ?? [])];
      const aces: Record<string, unknown> = {};
      for (const descriptor of descriptors) {
        const own = acl?.aces.get(descriptor);
        if (!own && !extended) continue;
        const ace: Record<string, unknown> = { descriptor, allow: own?.allow ?? 0, deny: own?.deny ?? 0 };
        if (extended) {
          const effective = this.effective(t, descriptor);
          ace['extendedInfo'] = {
            effectiveAllow: effective.allow,
            effectiveDeny: effective.deny,
            inheritedAllow: effective.allow & ~(own?.allow ?? 0),
            inheritedDeny: effective.deny & ~(own?.deny ?? 0),
          };
        }
        aces[descriptor] = ace;
      }
      return { inheritPermissions: acl?.inherit ?? true, token: t, acesDictionary: aces, includeExtendedInfo: extended };
    });
    return json(200, { count: value.length, value });
  }

  /** Effective bits of a descriptor on a token, through its groups and the token's ancestors. */
  private effective(token: string, descriptor: string): { allow: number; deny: number } {
    const subjects = this.subjectsOf(descriptor);
    let allow = 0;
    let deny = 0;
    let decided = 0;
    const parts = token.split('/');
    for (let depth = parts.length; depth > 0; depth--) {
      const acl = this.acls.get(parts.slice(0, depth).join('/'));
      let levelAllow = 0;
      let levelDeny = 0;
      for (const subject of subjects) {
        const ace = acl?.aces.get(subject);
        levelAllow |= ace?.allow ?? 0;
        levelDeny |= ace?.deny ?? 0;
      }
      deny |= levelDeny & ~decided;
      decided |= levelDeny;
      allow |= levelAllow & ~decided;
      decided |= levelAllow;
      if (acl && !acl.inherit) break;
    }
    return { allow, deny };
  }

  /** The descriptor and those of every group its identity is in, transitively. */
  private subjectsOf(descriptor: string): string[] {
    const start = this.byDescriptor(descriptor);
    if (!start) return [descriptor];
    const seen = new Map<string, AdoIdentityState>([[start.id, start]]);
    const queue = [start];
    while (queue.length > 0) {
      for (const groupId of queue.shift()?.memberOf ?? []) {
        const group = this.identities.get(groupId);
        if (group && !seen.has(group.id)) {
          seen.set(group.id, group);
          queue.push(group);
        }
      }
    }
    return [...seen.values()].map((i) => i.descriptor);
  }

  private byDescriptor(descriptor: string): AdoIdentityState | undefined {
    return [...this.identities.values()].find((i) => i.descriptor.toLowerCase() === descriptor.toLowerCase());
  }

  private add(identity: AdoIdentityState): AdoIdentityState {
    this.identities.set(identity.id, identity);
    return identity;
  }

  private aclOf(token: string): AclState {
    let acl = this.acls.get(token);
    if (!acl) this.acls.set(token, (acl = { inherit: true, aces: new Map() }));
    return acl;
  }

  private renderIdentity(i: AdoIdentityState): Record<string, unknown> {
    return {
      id: i.id,
      descriptor: i.descriptor,
      subjectDescriptor: `${i.isGroup ? 'vssgp' : 'aad'}.${Buffer.from(i.id).toString('base64url')}`,
      providerDisplayName: i.displayName,
      isActive: true,
      isContainer: i.isGroup,
      members: [],
      memberOf: [],
      memberIds: [],
      properties: { Account: { $type: 'System.String', $value: i.name }, ...(i.isGroup ? {} : { Mail: { $type: 'System.String', $value: i.name } }) },
      resourceVersion: 2,
      metaTypeId: i.isGroup ? 255 : 0,
    };
  }
}
