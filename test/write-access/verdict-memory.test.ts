import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import { WRITE_ACCESS_MEMORY_MS } from '../../src/write-access/write-access.js';
import { AzureDevOpsStandIn } from '../stand-ins/azure-devops-stand-in.js';
import { GitPermission } from '../stand-ins/azure-devops-security.js';
import { GitLabRole } from '../stand-ins/gitlab-members.js';
import { GitLabStandIn } from '../stand-ins/gitlab-stand-in.js';
import { createTestEnv, type TestEnv } from '../support/test-env.js';
import { deleteKeys, REDIS_URL } from '../support/test-store.js';
import { PROJECTS, queryOf, repoConfig, WriteAccessApp } from './support/write-access-app.js';

/** A host's verdict is remembered five minutes per author and repository, across replicas. */

const SECRETS = { gitlab: 'glpat-MemorySecret0001', ado: 'adoMemorySecret0002' };

let gitlab: GitLabStandIn;
let ledger: GitLabStandIn;
let ado: AzureDevOpsStandIn;
let adoAuthor: { login: string; id: string };

beforeAll(async () => {
  gitlab = await new GitLabStandIn(SECRETS.gitlab).start();
  ledger = await new GitLabStandIn(SECRETS.gitlab, 'fin/ledger', 78).start();
  for (const host of [gitlab, ledger]) {
    host.members.addUser('maintainer', 502);
    host.members.addProjectMember('maintainer', GitLabRole.Maintainer);
    host.members.addUser('reporter', 503);
    host.members.addGroupMember('fin', 'reporter', GitLabRole.Reporter);
  }
  ado = await new AzureDevOpsStandIn(SECRETS.ado).start();
  const contributors = ado.security.addGroup('Contributors');
  ado.security.setPermission(ado.security.projectToken, contributors, { allow: GitPermission.GenericContribute });
  const dev = ado.security.addUser('dev@acme.example');
  ado.security.addMember(contributors, dev);
  adoAuthor = { login: dev.name, id: dev.id };
});

afterAll(() => Promise.all([gitlab?.stop(), ledger?.stop(), ado?.stop()]));

afterEach(() => {
  for (const host of [gitlab, ledger, ado]) host.clearRequests();
});

const billing = (overrides = {}) => repoConfig(Platform.GitLab, { name: 'billing', url: 'https://gitlab.example/fin/billing', api_url: gitlab.apiUrl, auth_secret: SECRETS.gitlab, ...overrides });
const ledgerRepo = () => repoConfig(Platform.GitLab, { name: 'ledger', url: 'https://gitlab.example/fin/ledger', api_url: ledger.apiUrl, auth_secret: SECRETS.gitlab });
const shopWeb = () => repoConfig(Platform.AzureDevOps, { name: 'shop-web', url: ado.repositoryWebUrl, api_url: ado.organizationUrl, auth_secret: SECRETS.ado });
const maintainer = { login: 'maintainer', id: '502' };

describe('in the store, shared by the replicas', () => {
  let setup: TestEnv;
  let redis: Redis;
  let first: WriteAccessApp;
  let second: WriteAccessApp;

  beforeAll(async () => {
    setup = createTestEnv('write-access-memory', { config: { projects: PROJECTS } });
    redis = new Redis(REDIS_URL);
    [first, second] = await Promise.all([WriteAccessApp.boot(setup.env), WriteAccessApp.boot(setup.env)]);
  });

  afterEach(() => deleteKeys(redis, setup.keyPrefix));

  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
    await deleteKeys(redis, setup.keyPrefix);
    redis.disconnect();
    setup.remove();
  });

  const keyOf = (repository: string, author: string) => `${setup.keyPrefix}write-access:platform-b:${repository}:${author}`;

  it('two checks within five minutes make one lookup; the second answers from memory', async () => {
    await expect(first.service.check(queryOf(billing(), maintainer))).resolves.toEqual({ granted: true, source: 'lookup' });
    await expect(first.service.check(queryOf(billing(), maintainer))).resolves.toEqual({ granted: true, source: 'remembered' });
    expect(gitlab.members.calls.members).toBe(1);
    const key = keyOf('https://gitlab.example/fin/billing', 'id=502');
    expect(await redis.get(key)).toBe(JSON.stringify({ granted: true }));
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(WRITE_ACCESS_MEMORY_MS - 10_000);
    expect(ttl).toBeLessThanOrEqual(WRITE_ACCESS_MEMORY_MS);
  });

  it('a refusal the host gave is remembered with its reason', async () => {
    const refused = await first.service.check(queryOf(billing(), { login: 'reporter', id: '503' }));
    expect(refused).toMatchObject({ granted: false, source: 'lookup' });
    const again = await first.service.check(queryOf(billing(), { login: 'reporter', id: '503' }));
    expect(again).toEqual({ granted: false, source: 'remembered', reason: refused.granted ? '' : refused.reason });
    expect(gitlab.members.calls.members).toBe(1);
  });

  it('a second replica sharing the store makes no lookup', async () => {
    await expect(first.service.check(queryOf(shopWeb(), adoAuthor))).resolves.toEqual({ granted: true, source: 'lookup' });
    expect(ado.security.calls).toEqual({ identities: 1, repository: 1, acl: 1 });
    await expect(second.service.check(queryOf(shopWeb(), adoAuthor))).resolves.toEqual({ granted: true, source: 'remembered' });
    expect(ado.security.calls).toEqual({ identities: 1, repository: 1, acl: 1 });
  });

  it('an expired memory asks the host again', async () => {
    await first.service.check(queryOf(billing(), maintainer));
    await redis.pexpire(keyOf('https://gitlab.example/fin/billing', 'id=502'), 1);
    await new Promise((done) => setTimeout(done, 20));
    await expect(second.service.check(queryOf(billing(), maintainer))).resolves.toEqual({ granted: true, source: 'lookup' });
    expect(gitlab.members.calls.members).toBe(2);
  });

  it('is per author and per repository', async () => {
    await first.service.check(queryOf(billing(), maintainer));
    await expect(first.service.check(queryOf(billing(), { login: 'reporter', id: '503' }))).resolves.toMatchObject({ source: 'lookup' });
    await expect(first.service.check(queryOf(ledgerRepo(), maintainer))).resolves.toEqual({ granted: true, source: 'lookup' });
    expect(gitlab.members.calls.members).toBe(2);
    expect(ledger.members.calls.members).toBe(1);
  });

  it('a failed lookup is not remembered: the next check asks again', async () => {
    gitlab.failNext(1, { status: 502, match: (r) => r.path.includes('/members/all/') });
    gitlab.failNext(1, { status: 502, match: (r) => r.path.includes('/members/all/') });
    await expect(first.service.check(queryOf(billing(), maintainer))).resolves.toMatchObject({ granted: false, reason: expect.stringContaining('could not check write access') });
    expect(await redis.keys(`${setup.keyPrefix}*`)).toEqual([]);
    await expect(second.service.check(queryOf(billing(), maintainer))).resolves.toEqual({ granted: true, source: 'lookup' });
  });

  it('keys carry neither the token nor user info of the repository URL', async () => {
    await first.service.check(queryOf(billing({ url: 'https://oauth2:url-password-1@GitLab.example/fin/billing.git' }), maintainer));
    const keys = await redis.keys(`${setup.keyPrefix}*`);
    expect(keys).toEqual([keyOf('https://gitlab.example/fin/billing', 'id=502')]);
  });
});

describe('without a store: in the replica, with the same expiry', () => {
  let setup: TestEnv;
  let app: WriteAccessApp;
  let other: WriteAccessApp;
  const MEMORY_MS = 400;

  beforeAll(async () => {
    setup = createTestEnv('write-access-local', { config: { projects: PROJECTS }, store: false });
    [app, other] = await Promise.all([WriteAccessApp.boot(setup.env, { memoryMs: MEMORY_MS }), WriteAccessApp.boot(setup.env, { memoryMs: MEMORY_MS })]);
  });

  afterAll(async () => {
    await Promise.all([app?.close(), other?.close()]);
    setup.remove();
  });

  it('remembers a verdict for memoryMs, then asks again; another replica asks for itself', async () => {
    await expect(app.service.check(queryOf(billing(), maintainer))).resolves.toEqual({ granted: true, source: 'lookup' });
    await expect(app.service.check(queryOf(billing(), maintainer))).resolves.toEqual({ granted: true, source: 'remembered' });
    await expect(other.service.check(queryOf(billing(), maintainer))).resolves.toEqual({ granted: true, source: 'lookup' });
    expect(gitlab.members.calls.members).toBe(2);
    await new Promise((done) => setTimeout(done, MEMORY_MS + 50));
    await expect(app.service.check(queryOf(billing(), maintainer))).resolves.toEqual({ granted: true, source: 'lookup' });
    expect(gitlab.members.calls.members).toBe(3);
  });
});
