import type { RepoConfig } from '../../config/service-config.js';
import type { TrackerHttp, TrackerHttpOptions } from '../http/tracker-http.js';
import { Platform } from '../platform.js';
import { clientForRepository, inRepository, refusal } from '../pull-request-errors.js';
import { type AuthorRef, describeAuthor, type HostVerdict, type WriteAccessLookup } from '../write-access-lookup.js';
import { gitLabProject, type GitLabMergeRequestsOptions } from './gitlab-merge-requests.client.js';

/** Developer: the least role that may push (spec: "Developer role or higher"). */
export const DEVELOPER_ACCESS = 30;

const ROLES: Record<number, string> = { 0: 'No access', 5: 'Minimal access', 10: 'Guest', 15: 'Planner', 20: 'Reporter', 30: 'Developer', 40: 'Maintainer', 50: 'Owner', 60: 'Admin' };

interface GitLabMember {
  access_level?: number;
}

/**
 * Write access on GitLab REST v4: the author's role on the project, direct or inherited through
 * its groups, from `GET /projects/:id/members/all/:user_id` (scope read_api), which answers the
 * highest role and 404 for someone who is no member. The numeric user id comes from the payload;
 * without it the username is resolved with `GET /users?username=`.
 */
export class GitLabWriteAccessClient implements WriteAccessLookup {
  readonly platform = Platform.GitLab;
  private readonly http: TrackerHttp;
  private readonly projectPath: string;
  private readonly repository: string;

  constructor(options: GitLabMergeRequestsOptions) {
    ({ projectPath: this.projectPath, repository: this.repository, http: this.http } = gitLabProject(options));
  }

  static fromConfig(repo: RepoConfig, http?: TrackerHttpOptions): GitLabWriteAccessClient {
    return clientForRepository(Platform.GitLab, repo, (token) => new GitLabWriteAccessClient({ repoUrl: repo.url, apiUrl: repo.api_url, token, repository: repo.name, http }));
  }

  check(author: AuthorRef): Promise<HostVerdict> {
    return inRepository(this.repository, async () => {
      const who = describeAuthor(author);
      const userId = /^\d+$/.test(author.id ?? '') ? author.id : await this.userIdOf(author.login);
      if (userId === null) return { granted: false, reason: `${who} is not a GitLab user` };
      const res = await this.http.request<GitLabMember | { message?: string }>({
        method: 'GET',
        path: `${this.projectPath}/members/all/${userId}`,
        passStatuses: [404],
      });
      if (res.status === 404) {
        // "404 Project Not Found" is about our token (it cannot see the project), not the author.
        const message = (res.body as { message?: string } | undefined)?.message ?? '';
        if (/project/i.test(message)) throw refusal(this.platform, this.repository, 'the token cannot see the project (404 Project Not Found)', 404);
        return { granted: false, reason: `${who} is not a member of ${this.repository}` };
      }
      const level = (res.body as GitLabMember).access_level;
      if (typeof level !== 'number') throw refusal(this.platform, this.repository, 'GitLab answered a member without access_level', res.status);
      if (level >= DEVELOPER_ACCESS) return { granted: true };
      return { granted: false, reason: `${who} has the ${ROLES[level] ?? 'unknown'} role (${level}) on ${this.repository}; Developer (30) or higher is needed` };
    });
  }

  /** The user id of a username (GitLab matches it case-insensitively), or null when none has it. */
  private async userIdOf(username: string | null): Promise<string | null> {
    if (!username) return null;
    const res = await this.http.request<{ id?: number; username?: string }[]>({ method: 'GET', path: 'users', query: { username } });
    const user = (Array.isArray(res.body) ? res.body : []).find((u) => u.username?.toLowerCase() === username.toLowerCase());
    return typeof user?.id === 'number' ? String(user.id) : null;
  }
}
