import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import { AzureDevOpsStandIn } from '../stand-ins/azure-devops-stand-in.js';
import { GitPermission } from '../stand-ins/azure-devops-security.js';
import { GitHubStandIn } from '../stand-ins/github-stand-in.js';
import { GitLabRole } from '../stand-ins/gitlab-members.js';
import { GitLabStandIn } from '../stand-ins/gitlab-stand-in.js';
import { createTestEnv, type TestEnv } from '../support/test-env.js';
import { deleteKeys, REDIS_URL } from '../support/test-store.js';
import { PROJECTS, queryOf, repoConfig, WriteAccessApp } from './support/write-access-app.js';

/** Who may issue commands, per host, against the real service, store and HTTP stand-ins. */

const SECRETS = { github: 'ghp_WriteAccessSecret0001', gitlab: 'glpat-WriteAccessSecret0002', ado: 'adoWriteAccessSecret0003' };

let setup: TestEnv;
let redis: Redis;
let app: WriteAccessApp;
let github: GitHubStandIn;
let gitlab: GitLabStandIn;
let ado: AzureDevOpsStandIn;

beforeAll(async () => {
  setup = createTestEnv('write-access-hosts', { config: { projects: PROJECTS } });
  redis = new Redis(REDIS_URL);
  github = await new GitHubStandIn(SECRETS.github).start();
  gitlab = await new GitLabStandIn(SECRETS.gitlab).start();
  ado = await new AzureDevOpsStandIn(SECRETS.ado).start();
  app = await WriteAccessApp.boot(setup.env);
});

afterEach(async () => {
  // Each test asks afresh: no verdict of another test is remembered.
  await deleteKeys(redis, setup.keyPrefix);
  gitlab.clearRequests();
  ado.clearRequests();
});

afterAll(async () => {
  await app?.close();
  await Promise.all([github?.stop(), gitlab?.stop(), ado?.stop()]);
  await deleteKeys(redis, setup.keyPrefix);
  redis.disconnect();
  setup.remove();
});

const gitHubRepo = () => repoConfig(Platform.GitHub, { name: 'shop-web', url: 'https://github.com/acme/shop-web', api_url: github.apiUrl, auth_secret: SECRETS.github });
const gitLabRepo = (overrides = {}) => repoConfig(Platform.GitLab, { name: 'billing', url: 'https://gitlab.example/fin/billing', api_url: gitlab.apiUrl, auth_secret: SECRETS.gitlab, ...overrides });
const adoRepo = (overrides = {}) => repoConfig(Platform.AzureDevOps, { name: 'shop-web', url: ado.repositoryWebUrl, api_url: ado.organizationUrl, auth_secret: SECRETS.ado, ...overrides });

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

describe('platform-a (GitHub): author_association from the payload', () => {
  it.each(['OWNER', 'MEMBER', 'COLLABORATOR'])('%s is granted without any API call', async (association) => {
    const verdict = await app.service.check(queryOf(gitHubRepo(), { login: 'ana', id: '11' }, { authorAssociation: association }));
    expect(verdict).toEqual({ granted: true, source: 'payload' });
    expect(github.requests).toHaveLength(0);
  });

  it('a CONTRIBUTOR is refused, the reason naming the association', async () => {
    const verdict = await app.service.check(queryOf(gitHubRepo(), { login: 'mallory', id: '12' }, { authorAssociation: 'CONTRIBUTOR' }));
    expect(verdict).toEqual({ granted: false, source: 'payload', reason: expect.stringContaining('mallory has author_association CONTRIBUTOR') });
    expect(github.requests).toHaveLength(0);
  });

  it('a payload without author_association is refused', async () => {
    const verdict = await app.service.check(queryOf(gitHubRepo(), { login: 'mallory' }, { authorAssociation: null }));
    expect(verdict).toMatchObject({ granted: false, source: 'payload', reason: expect.stringContaining('no author_association') });
  });
});

describe('platform-b (GitLab): Developer or higher on the project, directly or through a group', () => {
  beforeAll(() => {
    gitlab.members.addUser('dev-in-group', 501);
    gitlab.members.addGroupMember('fin', 'dev-in-group', GitLabRole.Developer);
    gitlab.members.addUser('maintainer', 502);
    gitlab.members.addProjectMember('maintainer', GitLabRole.Maintainer);
    gitlab.members.addUser('reporter', 503);
    gitlab.members.addProjectMember('reporter', GitLabRole.Reporter);
    gitlab.members.addUser('promoted', 504);
    gitlab.members.addGroupMember('fin', 'promoted', GitLabRole.Reporter);
    gitlab.members.addProjectMember('promoted', GitLabRole.Developer);
    gitlab.members.addUser('stranger', 505);
  });

  it('a Developer through the project’s group is granted, by the payload’s user id', async () => {
    const verdict = await app.service.check(queryOf(gitLabRepo(), { login: 'dev-in-group', id: '501' }));
    expect(verdict).toEqual({ granted: true, source: 'lookup' });
    expect(gitlab.members.calls).toEqual({ members: 1, users: 0 });
    const asked = gitlab.requests.find((r) => r.path.includes('/members/all/'));
    expect(asked?.path).toBe('/api/v4/projects/fin%2Fbilling/members/all/501');
    expect(asked?.headers['private-token']).toBe(SECRETS.gitlab);
  });

  it('a direct Maintainer is granted; the highest of a group role and a direct one counts', async () => {
    await expect(app.service.check(queryOf(gitLabRepo(), { login: 'maintainer', id: '502' }))).resolves.toEqual({ granted: true, source: 'lookup' });
    await expect(app.service.check(queryOf(gitLabRepo(), { login: 'promoted', id: '504' }))).resolves.toEqual({ granted: true, source: 'lookup' });
  });

  it('a Reporter is refused, the reason naming the role', async () => {
    const verdict = await app.service.check(queryOf(gitLabRepo(), { login: 'reporter', id: '503' }));
    expect(verdict).toEqual({ granted: false, source: 'lookup', reason: 'reporter has the Reporter role (20) on billing; Developer (30) or higher is needed' });
  });

  it('someone who is no member (404) is refused', async () => {
    const verdict = await app.service.check(queryOf(gitLabRepo(), { login: 'stranger', id: '505' }));
    expect(verdict).toEqual({ granted: false, source: 'lookup', reason: 'stranger is not a member of billing' });
  });

  it('without an id in the payload the username is resolved first', async () => {
    const verdict = await app.service.check(queryOf(gitLabRepo(), { login: 'Dev-In-Group' }));
    expect(verdict).toEqual({ granted: true, source: 'lookup' });
    expect(gitlab.members.calls).toEqual({ members: 1, users: 1 });
    const unknown = await app.service.check(queryOf(gitLabRepo(), { login: 'nobody-here' }));
    expect(unknown).toEqual({ granted: false, source: 'lookup', reason: 'nobody-here is not a GitLab user' });
  });

  it('a 500 from the members API is refused, credential-free, and not remembered', async () => {
    gitlab.failNext(1, { status: 500, body: { message: '500 Internal Server Error' }, match: (r) => r.path.includes('/members/all/') });
    const failed = await app.service.check(queryOf(gitLabRepo(), { login: 'maintainer', id: '502' }));
    expect(failed).toMatchObject({ granted: false, source: 'lookup', reason: expect.stringMatching(/^could not check write access: .*HTTP 500/) });
    expect(JSON.stringify(failed)).not.toContain(SECRETS.gitlab);
    expect(await redis.keys(`${setup.keyPrefix}*`)).toEqual([]);
    await expect(app.service.check(queryOf(gitLabRepo(), { login: 'maintainer', id: '502' }))).resolves.toEqual({ granted: true, source: 'lookup' });
    expect(gitlab.members.calls.members).toBe(2);
  });

  it('a token the host refuses (401) is a failed lookup, and the reason does not carry it', async () => {
    const verdict = await app.service.check(queryOf(gitLabRepo({ auth_secret: 'glpat-NotTheRightOne99' }), { login: 'maintainer', id: '502' }));
    expect(verdict).toMatchObject({ granted: false, source: 'lookup', reason: expect.stringMatching(/^could not check write access: .*HTTP 401/) });
    expect(JSON.stringify(verdict)).not.toContain('glpat-NotTheRightOne99');
    expect(await redis.keys(`${setup.keyPrefix}*`)).toEqual([]);
  });

  it('an unreachable host is a failed lookup, not remembered', async () => {
    const repo = gitLabRepo({ api_url: `http://127.0.0.1:${await closedPort()}/api/v4` });
    const verdict = await app.service.check(queryOf(repo, { login: 'maintainer', id: '502' }));
    expect(verdict).toMatchObject({ granted: false, source: 'lookup', reason: expect.stringMatching(/^could not check write access: .*failed/) });
    expect(await redis.keys(`${setup.keyPrefix}*`)).toEqual([]);
  });

  it('a host that does not answer in time is a failed lookup', async () => {
    gitlab.setDown('hang');
    try {
      const verdict = await app.service.check(queryOf(gitLabRepo(), { login: 'maintainer', id: '502' }));
      expect(verdict).toMatchObject({ granted: false, source: 'lookup', reason: expect.stringContaining('timed out') });
    } finally {
      gitlab.setDown(null);
    }
  });
});

describe('platform-c (Azure DevOps): effective Contribute on the repository', () => {
  beforeAll(() => {
    const s = ado.security;
    const contributors = s.addGroup('Contributors');
    const readers = s.addGroup('Readers');
    const team = s.addGroup('Shop Team');
    s.addMember(contributors, team); // a group in a group
    s.setPermission(s.projectToken, contributors, { allow: GitPermission.GenericRead | GitPermission.GenericContribute });
    s.setPermission(s.projectToken, readers, { allow: GitPermission.GenericRead });
    s.addMember(team, s.addUser('dev@acme.example'));
    s.addMember(readers, s.addUser('reader@acme.example'));
    const denied = s.addUser('denied@acme.example');
    s.addMember(contributors, denied);
    s.setPermission(s.repositoryToken, denied, { deny: GitPermission.GenericContribute });
    const own = s.addUser('own@acme.example');
    s.addMember(readers, own);
    s.setPermission(s.repositoryToken, own, { allow: GitPermission.GenericContribute });
    s.addUser('nobody@acme.example');
  });

  const identity = (uniqueName: string) => {
    const found = [...ado.security.identities.values()].find((i) => i.name === uniqueName);
    if (!found) throw new Error(uniqueName);
    return { login: uniqueName, id: found.id };
  };

  it('a contributor through nested groups is granted: identity, repository and ACL read once each', async () => {
    const verdict = await app.service.check(queryOf(adoRepo(), identity('dev@acme.example')));
    expect(verdict).toEqual({ granted: true, source: 'lookup' });
    expect(ado.security.calls).toEqual({ identities: 1, repository: 1, acl: 1 });
    const acl = ado.requests.find((r) => r.path.includes('/accesscontrollists/'));
    expect(acl?.query.get('token')).toBe(ado.security.repositoryToken);
    expect(acl?.query.get('includeExtendedInfo')).toBe('true');
    expect(acl?.query.get('descriptors')).toContain('dev@acme.example');
  });

  it('a reader is refused: no Contribute', async () => {
    const verdict = await app.service.check(queryOf(adoRepo(), identity('reader@acme.example')));
    expect(verdict).toEqual({ granted: false, source: 'lookup', reason: 'reader@acme.example has no Contribute permission on shop-web' });
  });

  it('a deny on the repository beats the group’s allow; an allow there beats what the project gives', async () => {
    await expect(app.service.check(queryOf(adoRepo(), identity('denied@acme.example')))).resolves.toEqual({
      granted: false, source: 'lookup', reason: 'denied@acme.example is denied Contribute on shop-web',
    });
    await expect(app.service.check(queryOf(adoRepo(), identity('own@acme.example')))).resolves.toEqual({ granted: true, source: 'lookup' });
  });

  it('with inheritance off on the repository the project’s allow no longer counts', async () => {
    ado.security.setInheritance(ado.security.repositoryToken, false);
    try {
      const verdict = await app.service.check(queryOf(adoRepo(), identity('dev@acme.example')));
      expect(verdict).toMatchObject({ granted: false, reason: expect.stringContaining('no Contribute') });
    } finally {
      ado.security.setInheritance(ado.security.repositoryToken, true);
    }
  });

  it('without an id in the payload the uniqueName is searched', async () => {
    const verdict = await app.service.check(queryOf(adoRepo(), { login: 'DEV@acme.example' }));
    expect(verdict).toEqual({ granted: true, source: 'lookup' });
    expect(ado.requests.find((r) => r.path.endsWith('/_apis/identities'))?.query.get('searchFilter')).toBe('General');
  });

  it('an identity the organization does not know is refused', async () => {
    await expect(app.service.check(queryOf(adoRepo(), { login: 'ghost@elsewhere.example', id: '00000000-0000-4000-8000-00000000dead' }))).resolves.toEqual({
      granted: false, source: 'lookup', reason: 'ghost@elsewhere.example is not an Azure DevOps identity of this organization',
    });
    await expect(app.service.check(queryOf(adoRepo(), { login: 'ghost@elsewhere.example' }))).resolves.toMatchObject({ granted: false, source: 'lookup' });
  });

  it('a 500 from the security API is a failed lookup, not remembered', async () => {
    ado.failNext(1, { status: 500, body: { message: 'VS402371: internal error' }, match: (r) => r.path.includes('/accesscontrollists/') });
    const verdict = await app.service.check(queryOf(adoRepo(), identity('dev@acme.example')));
    expect(verdict).toMatchObject({ granted: false, source: 'lookup', reason: expect.stringMatching(/^could not check write access: .*HTTP 500: VS402371/) });
    expect(await redis.keys(`${setup.keyPrefix}*`)).toEqual([]);
    await expect(app.service.check(queryOf(adoRepo(), identity('dev@acme.example')))).resolves.toEqual({ granted: true, source: 'lookup' });
  });
});

describe('what counts as no write access before any host is asked', () => {
  it('a repository without auth_secret is refused: no token to check with', async () => {
    for (const repo of [gitLabRepo({ auth_secret: null }), adoRepo({ auth_secret: null })]) {
      const verdict = await app.service.check(queryOf(repo, { login: 'maintainer', id: '502' }));
      expect(verdict).toEqual({ granted: false, source: 'lookup', reason: `repository ${repo.name} has no auth_secret: no token to check with` });
    }
    expect(gitlab.requests).toHaveLength(0);
    expect(ado.requests).toHaveLength(0);
  });

  it('an undeclared repository is refused, naming it so', async () => {
    const verdict = await app.service.check(queryOf(null, { login: 'maintainer', id: '502' }, { platform: Platform.GitLab }));
    expect(verdict).toEqual({ granted: false, source: 'lookup', reason: 'the repository is not declared in project shop' });
  });

  it('pr_commands.require_member: false grants without any lookup, even a stranger on an undeclared repository', async () => {
    await expect(app.service.check(queryOf(gitLabRepo(), { login: 'stranger', id: '505' }, { project: 'open' }))).resolves.toEqual({ granted: true, source: 'not-required' });
    await expect(app.service.check(queryOf(null, { login: 'stranger' }, { project: 'open', platform: Platform.GitLab }))).resolves.toEqual({ granted: true, source: 'not-required' });
    expect(gitlab.requests).toHaveLength(0);
  });

  it('an unknown project, an author the payload does not name, or a repository of another platform are refused', async () => {
    await expect(app.service.check(queryOf(gitLabRepo(), { id: '502' }, { project: 'elsewhere' }))).resolves.toMatchObject({ granted: false, reason: 'project elsewhere is not configured' });
    await expect(app.service.check(queryOf(gitLabRepo(), {}))).resolves.toMatchObject({ granted: false, reason: 'the payload does not name the author' });
    await expect(app.service.check(queryOf(gitLabRepo(), { id: '502' }, { platform: Platform.AzureDevOps }))).resolves.toMatchObject({
      granted: false, reason: 'repository billing is on platform-b, not platform-c',
    });
    expect(gitlab.requests).toHaveLength(0);
  });
});
