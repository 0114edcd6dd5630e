import { json, notFound, type RecordedRequest, type StandInResponse } from './stand-in-server.js';

/** GitLab's roles (`access_level`). */
export const GitLabRole = { Guest: 10, Reporter: 20, Developer: 30, Maintainer: 40, Owner: 50 } as const;

export interface GitLabUser {
  id: number;
  username: string;
  name: string;
}

/**
 * Users, groups and project membership of the GitLab stand-in, with GitLab's semantics:
 * - the project lives in a namespace (`fin/billing` → group `fin`); a member of that group or
 *   of any ancestor group (`fin/sub/x` → `fin/sub`, `fin`) is a member of the project too;
 * - `GET /projects/:id/members/all/:user_id` answers the member with the highest role among the
 *   direct and inherited memberships (as GitLab's members finder does), 404 `{"message":"404 Not
 *   found"}` for a user who is none, and 400 for an id that is not a number;
 * - `GET /users?username=` answers a list: the user (usernames compare case-insensitively) or [].
 * Requests are counted per endpoint (`calls`), faults included, so a test can see a lookup
 * happen or not.
 */
export class GitLabMembers {
  private readonly users = new Map<number, GitLabUser>();
  /** group full path → user id → role. */
  private readonly groups = new Map<string, Map<number, number>>();
  private readonly direct = new Map<number, number>();
  private nextUserId = 7001;

  constructor(private readonly host: { readonly projectPath: string; readonly requests: RecordedRequest[] }) {}

  /** A user (`id` chosen by the stand-in unless given). */
  addUser(username: string, id: number = this.nextUserId++): GitLabUser {
    const user = { id, username, name: username.charAt(0).toUpperCase() + username.slice(1) };
    this.users.set(id, user);
    return user;
  }

  user(username: string): GitLabUser {
    const found = [...this.users.values()].find((u) => u.username.toLowerCase() === username.toLowerCase());
    if (!found) throw new Error(`no GitLab user ${username}`);
    return found;
  }

  /** A direct member of the project. */
  addProjectMember(username: string, role: number): void {
    this.direct.set(this.user(username).id, role);
  }

  /** A member of a group (`fin`, `fin/sub`): of every project under it as well. */
  addGroupMember(groupPath: string, username: string, role: number): void {
    const members = this.groups.get(groupPath) ?? new Map<number, number>();
    members.set(this.user(username).id, role);
    this.groups.set(groupPath, members);
  }

  /** Requests per endpoint so far: `members` (members/all/:id) and `users` (?username=). */
  get calls(): { members: number; users: number } {
    const gets = this.host.requests.filter((r) => r.method === 'GET');
    return {
      members: gets.filter((r) => /\/members\/all\/[^/]+$/.test(r.path)).length,
      users: gets.filter((r) => /\/api\/v4\/users$/.test(r.path)).length,
    };
  }

  /** `GET /users?username=`. */
  listUsers(req: RecordedRequest): StandInResponse {
    const username = req.query.get('username');
    const found = [...this.users.values()].filter((u) => username === null || u.username.toLowerCase() === username.toLowerCase());
    return json(200, found.map((u) => this.renderUser(u)));
  }

  /** `GET /projects/:id/members/all/:user_id`. */
  memberOfProject(userId: string): StandInResponse {
    if (!/^\d+$/.test(userId)) return json(400, { error: 'user_id is invalid' });
    const user = this.users.get(Number(userId));
    const level = user ? this.effectiveRole(user.id) : null;
    if (!user || level === null) return notFound({ message: '404 Not found' });
    return json(200, { ...this.renderUser(user), access_level: level, created_at: '2024-01-01T00:00:00.000Z', expires_at: null, membership_state: 'active' });
  }

  /** The highest role of the direct membership and those of the project's ancestor groups. */
  private effectiveRole(userId: number): number | null {
    const levels: number[] = [];
    const direct = this.direct.get(userId);
    if (direct !== undefined) levels.push(direct);
    const namespace = this.host.projectPath.split('/').slice(0, -1);
    for (let depth = 1; depth <= namespace.length; depth++) {
      const level = this.groups.get(namespace.slice(0, depth).join('/'))?.get(userId);
      if (level !== undefined) levels.push(level);
    }
    return levels.length > 0 ? Math.max(...levels) : null;
  }

  private renderUser(user: GitLabUser): Record<string, unknown> {
    return { id: user.id, username: user.username, name: user.name, state: 'active', web_url: `https://gitlab.example/${user.username}` };
  }
}
