import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initProject } from '../../../src/cli/init.command.js';
import { SERVICE_MARKER } from '../../../src/platforms/service-marker.js';
import { type AuthBench, bearer, bootApp, createAuthBench } from '../../auth/support/auth-harness.js';
import { OidcAuthority } from '../../stand-ins/oidc-authority.js';
import { branchTip, commitFiles, fileAt, git, show, treeOf } from '../../stand-ins/git-repositories.js';
import { type CodeHost, type HostKind, startCodeHost } from '../../workspaces/support/code-hosts.js';
import { GIT_IDENTITY } from '../../workspaces/support/publish-config.js';

const INIT = 'service/init';
const DEFAULT_YAML = '.service/contexts/default/context.yaml';
const DEFAULT_PRINCIPLES = '.service/contexts/default/principles.md';
const OWN_PRINCIPLES = '# Our principles\n\nNever touch the payment adapters.\n';

interface InitBody {
  project: string;
  repositories: { repo: string; status: string; pullRequest?: { url: string; number: number }; files: string[]; error?: string }[];
}

/** `git diff --name-status <base> <branch>` in the bare repository, as `A\tpath` lines. */
const diffOf = (bare: string, base: string, branch: string) => git(['diff', '--name-status', base, branch], { cwd: bare }).split('\n').filter(Boolean);

/**
 * Project initialisation end to end on one code host: real git remotes behind the host's
 * stand-in, the whole server with authentication enforced (a local OpenID authority), the HTTP
 * route and the CLI's in-process command; assertions on the remote's branches and commits and
 * on the host's pull requests.
 */
export function describeInit(kind: HostKind): void {
  describe(`project initialisation through ${kind}, end to end`, () => {
    const token = `init-${kind}-token-${randomBytes(10).toString('hex')}`;
    let root: string;
    /** No contexts at all (a Node project). */
    let bare: CodeHost;
    /** Its own principles.md, no context.yaml. */
    let half: CodeHost;
    /** A complete context. */
    let done: CodeHost;
    let idp: OidcAuthority;
    let bench: AuthBench;
    let app: NestFastifyApplication;
    let operator: string;

    beforeAll(async () => {
      root = mkdtempSync(join(tmpdir(), 'init-e2e-'));
      [bare, half, done] = await Promise.all([
        startCodeHost(kind, root, token, 'shop-web'),
        startCodeHost(kind, root, token, 'shop-api'),
        startCodeHost(kind, root, token, 'shop-docs'),
      ]);
      commitFiles(bare.bare, 'main', {
        'package.json': JSON.stringify({ name: 'shop-web', scripts: { build: 'tsc', test: 'vitest run' } }),
        'package-lock.json': '{}\n',
        'README.md': '# Shop web\n\nThe storefront of the shop.\n',
      });
      commitFiles(half.bare, 'main', { [DEFAULT_PRINCIPLES]: OWN_PRINCIPLES, 'go.mod': 'module acme/api\n' });
      commitFiles(done.bare, 'main', { [DEFAULT_YAML]: 'name: default\ntest: [make test]\n', [DEFAULT_PRINCIPLES]: 'Be nice.\n' });
      idp = await OidcAuthority.start();
      bench = await createAuthBench('init_e2e');
      bench.writeConfig({
        sandbox: { backend: 'in-process' },
        git: GIT_IDENTITY,
        projects: {
          shop: { tracker: 'platform-d', repos: [bare.repoEntry(), half.repoEntry(), done.repoEntry()] },
          empty: { tracker: 'platform-d' },
        },
      });
      app = await bootApp(bench.environment({ SERVICE_AUTH_AUTHORITY: idp.authority, SERVICE_AUTH_AUDIENCE: idp.defaultAudience, SERVICE_AUTH_ENFORCE: 'true' }));
      operator = idp.mint({ sub: 'olga', claims: { roles: ['operator'] } });
    }, 90_000);

    afterAll(async () => {
      await app?.close();
      await bench?.cleanup();
      await idp?.stop();
      for (const host of [bare, half, done]) await host?.stop();
      if (root) rmSync(root, { recursive: true, force: true });
    });

    const post = (url: string, bearerToken: string) => app.inject({ method: 'POST', url, headers: bearer(bearerToken) });
    const initPrs = (host: CodeHost) => host.pullRequests().filter((pr) => pr.head === INIT);

    it('refuses a caller without projects.init, an unknown project and a project without repositories', async () => {
      const reader = await post('/api/projects/shop/init', idp.mint({ sub: 'rita', claims: { roles: ['reader'] } }));
      expect(reader.statusCode).toBe(403);
      expect(reader.json<{ missingPermissions: string[] }>().missingPermissions).toEqual(['projects.init']);
      expect((await app.inject({ method: 'POST', url: '/api/projects/shop/init' })).statusCode).toBe(401);
      const unknown = await post('/api/projects/nowhere/init', operator);
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toEqual({ error: 'no project nowhere; configured: shop, empty' });
      const empty = await post('/api/projects/empty/init', operator);
      expect(empty.statusCode).toBe(422);
      expect(empty.json<{ error: string }>().error).toMatch(/project empty declares no repositories/);
      // Nothing was touched by the refusals.
      for (const host of [bare, half, done]) expect(branchTip(host.bare, INIT)).toBeNull();
    });

    it('opens one pull request per incomplete repository on service/init, adding only the missing files', async () => {
      const bases = Object.fromEntries([bare, half, done].map((h) => [h.name, branchTip(h.bare, 'main')]));
      const res = await post('/api/projects/shop/init', operator);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json<InitBody>();
      expect(body.project).toBe('shop');
      const [web, api, docs] = body.repositories;
      expect(web).toMatchObject({ repo: 'shop-web', status: 'opened', files: [DEFAULT_YAML, DEFAULT_PRINCIPLES] });
      expect(api).toMatchObject({ repo: 'shop-api', status: 'opened', files: [DEFAULT_YAML] });
      expect(docs).toEqual({ repo: 'shop-docs', status: 'complete', files: [] });

      // shop-web: one commit on top of main adding both files, as initialisation spells it.
      expect(show(bare.bare, INIT, '%P')).toBe(bases['shop-web']);
      expect(show(bare.bare, INIT, '%s')).toBe('init: add service contexts');
      expect(show(bare.bare, INIT, '%(trailers:key=Pipeline,valueonly)')).toBe('init');
      expect(show(bare.bare, INIT, '%an <%ae>')).toBe(`${GIT_IDENTITY.author_name} <${GIT_IDENTITY.author_email}>`);
      expect(diffOf(bare.bare, 'main', INIT)).toEqual([`A\t${DEFAULT_YAML}`, `A\t${DEFAULT_PRINCIPLES}`]);
      const yaml = fileAt(bare.bare, INIT, DEFAULT_YAML);
      expect(yaml).toContain('- npm ci');
      expect(yaml).toContain('- npm run build');
      expect(yaml).toContain('description: The storefront of the shop.');
      expect(fileAt(bare.bare, INIT, DEFAULT_PRINCIPLES)).toMatch(/^# Principles of the `default` context/);
      expect(branchTip(bare.bare, 'main')).toBe(bases['shop-web']);

      // shop-api: only context.yaml is added; its own principles.md is untouched.
      expect(diffOf(half.bare, 'main', INIT)).toEqual([`A\t${DEFAULT_YAML}`]);
      expect(fileAt(half.bare, INIT, DEFAULT_PRINCIPLES)).toBe(OWN_PRINCIPLES);
      expect(fileAt(half.bare, INIT, DEFAULT_YAML)).toContain('go test ./...');

      // shop-docs: complete, so no branch and no pull request.
      expect(branchTip(done.bare, INIT)).toBeNull();
      expect(initPrs(done)).toEqual([]);
      expect(treeOf(done.bare, 'main').has(DEFAULT_YAML)).toBe(true);

      // The hosts: one pull request each, into main, with the service marker and the files.
      for (const [host, result] of [[bare, web], [half, api]] as const) {
        const prs = initPrs(host);
        expect(prs).toHaveLength(1);
        expect(prs[0]).toMatchObject({ number: result!.pullRequest!.number, title: 'Add pipeline-service contexts', base: 'main', open: true });
        expect(prs[0]!.body).toContain(SERVICE_MARKER);
        for (const file of result!.files) expect(prs[0]!.body).toContain(`\`${file}\``);
        expect(prs[0]!.body).toContain('bootstrap gate');
      }
      expect(initPrs(bare)[0]!.body).toContain('`package.json`');
    }, 90_000);

    it('the CLI run again finds the same pull requests, pushes nothing and duplicates nothing', async () => {
      const tips = [bare, half].map((h) => branchTip(h.bare, INIT));
      const numbers = [bare, half].map((h) => initPrs(h)[0]!.number);
      const bodyBefore = initPrs(bare)[0]!.body;
      // Another data directory: the CLI on another machine starts with no mirror.
      const dataDir = mkdtempSync(join(root, 'cli-data-'));
      const lines: string[] = [];
      const ok = await initProject(bench.environment({ SERVICE_DATA_DIR: dataDir }), { project: 'shop' }, (l) => lines.push(l));
      expect(ok, lines.join('\n')).toBe(true);
      expect(lines).toHaveLength(3);
      expect(lines[0]).toMatch(new RegExp(`^shop-web: updated \\S+ \\(adds ${DEFAULT_YAML.replace(/\./g, '\\.')}, ${DEFAULT_PRINCIPLES.replace(/\./g, '\\.')}\\)$`));
      expect(lines[1]).toMatch(/^shop-api: updated \S+ \(adds \.service\/contexts\/default\/context\.yaml\)$/);
      expect(lines[2]).toBe('shop-docs: complete');
      expect([bare, half].map((h) => branchTip(h.bare, INIT))).toEqual(tips);
      expect([bare, half].map((h) => initPrs(h).map((pr) => pr.number))).toEqual(numbers.map((n) => [n]));
      // The body still says how the files were written.
      expect(initPrs(bare)[0]!.body).toBe(bodyBefore);
    }, 90_000);

    it('a base branch that gained a context lacking a file: the open pull request gets it too; the existing files stay', async () => {
      commitFiles(half.bare, 'main', { '.service/contexts/jobs/context.yaml': 'name: jobs\npath: jobs/\n' });
      const res = await post('/api/projects/shop/init', operator);
      expect(res.statusCode, res.body).toBe(200);
      const api = res.json<InitBody>().repositories.find((r) => r.repo === 'shop-api')!;
      expect(api).toMatchObject({ status: 'updated', files: [DEFAULT_YAML, '.service/contexts/jobs/principles.md'] });
      expect(initPrs(half)).toHaveLength(1);
      // The new commit adds only jobs/principles.md on the init branch (context.yaml of jobs is main's, not the branch's to write).
      expect(git(['diff', '--name-status', `${INIT}~1`, INIT], { cwd: half.bare }).split('\n')).toEqual(['A\t.service/contexts/jobs/principles.md']);
      expect(fileAt(half.bare, INIT, DEFAULT_PRINCIPLES)).toBe(OWN_PRINCIPLES);
      expect(fileAt(half.bare, INIT, '.service/contexts/jobs/principles.md')).toContain('# Principles of the `jobs` context');
      expect(initPrs(half)[0]!.body).toContain('`.service/contexts/jobs/principles.md`');
    }, 90_000);

    it('a repository the server cannot push to fails alone, and the CLI says so with exit status false', async () => {
      bench.writeConfig({
        sandbox: { backend: 'in-process' },
        projects: { broken: { tracker: 'platform-d', repos: [bare.repoEntry({ name: 'no-token', auth_secret: 'wrong-token-abcdef' }), done.repoEntry()] } },
      });
      const lines: string[] = [];
      const ok = await initProject(bench.environment(), { project: 'broken' }, (l) => lines.push(l));
      expect(ok).toBe(false);
      expect(lines[0]).toMatch(/^no-token: failed: /);
      expect(lines[0]).not.toContain('wrong-token-abcdef');
      expect(lines[1]).toBe('shop-docs: complete');
      expect(await initProject(bench.environment(), { project: 'nowhere' }, (l) => lines.push(l))).toBe(false);
      expect(lines.at(-1)).toBe('unknown project nowhere; configured: broken');
    }, 90_000);
  });
}
