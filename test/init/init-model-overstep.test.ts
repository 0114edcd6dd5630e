import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import { SERVICE_MARKER } from '../../src/platforms/service-marker.js';
import { branchTip, commitFiles, fileAt, git, treeOf } from '../stand-ins/git-repositories.js';
import { ModelStandIn } from '../stand-ins/model-stand-in.js';
import { type CodeHost, startCodeHost } from '../workspaces/support/code-hosts.js';
import { GIT_IDENTITY } from '../workspaces/support/publish-config.js';
import { PublishServer } from '../workspaces/support/publish-server.js';

/**
 * Project initialisation when the model oversteps (issue 24, item 2), through the whole server
 * (`POST /api/projects/:name/init`), a GitHub stand-in with real git remotes and the model
 * stand-in: whatever the model changes besides the missing context files is dropped, the files
 * it added are kept, what it left unusable comes from the template, and the pull request opens.
 */
const INIT = 'service/init';
const MAIN_YAML = '.service/contexts/main/context.yaml';
const MAIN_PRINCIPLES = '.service/contexts/main/principles.md';
const JOBS_YAML = '.service/contexts/jobs/context.yaml';
const JOBS_PRINCIPLES = '.service/contexts/jobs/principles.md';
/** Odd bytes on purpose (CRLF, no final newline): a rewrite or a re-encoding would show. */
const OWN_YAML = 'name: main\r\npath: .\r\ntest: [make test]  # ours';
const MODEL_PRINCIPLES = '# Principles\n\nMODEL-PRINCIPLES-24b\n';

interface InitBody {
  repositories: { repo: string; status: string; pullRequest?: { url: string; number: number }; files: string[]; discarded?: string[]; error?: string }[];
}

const diffOf = (bare: string) => git(['diff', '--name-status', '--no-renames', 'main', INIT], { cwd: bare }).split('\n').filter(Boolean);
const blobOf = (bare: string, ref: string, path: string) => git(['rev-parse', `${ref}:${path}`], { cwd: bare });

describe('project initialisation keeps only what the model adds of the missing files', () => {
  const token = `init-overstep-${randomBytes(10).toString('hex')}`;
  const apiKey = `sk-overstep-${randomBytes(10).toString('hex')}`;
  let root: string;
  /** `main` has context.yaml, lacks principles.md; the model also rewrites context.yaml. */
  let rewrite: CodeHost;
  /** Two contexts lacking principles.md; the model makes one a link, the other a folder, and changes files elsewhere. */
  let wide: CodeHost;
  let model: ModelStandIn;
  let server: PublishServer;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'init-overstep-'));
    rewrite = await startCodeHost(Platform.GitHub, root, token, 'rewrite');
    commitFiles(rewrite.bare, 'main', { [MAIN_YAML]: OWN_YAML, 'Makefile': 'test:\n\ttrue\n' }, 'Our context');
    wide = await startCodeHost(Platform.GitHub, root, token, 'wide');
    commitFiles(wide.bare, 'main', {
      [MAIN_YAML]: OWN_YAML,
      [JOBS_YAML]: 'name: jobs\npath: jobs/\n',
      'src/app.js': 'console.log("app");\n',
    }, 'Our contexts');
    model = await ModelStandIn.start({ apiKey });
    model.respond(() => ({ text: 'nothing to do' }));
    const agent = { provider: 'openai-compatible', model: 'local-coder', base_url: model.baseUrl, api_key: apiKey, max_steps: 40, step_timeout_seconds: 120, requests_per_minute: 6000 };
    server = await PublishServer.boot({
      git: GIT_IDENTITY,
      // Model-driven commands on this host: the opt-in for development and tests.
      sandbox: { backend: 'in-process', cpu: 1, memory: '1Gi', allow_agents_in_process: true },
      agent,
      projects: {
        rewrite: { tracker: 'platform-d', repos: [rewrite.repoEntry()] },
        wide: { tracker: 'platform-d', repos: [wide.repoEntry()] },
      },
    });
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await model?.close();
    await rewrite?.stop();
    await wide?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const init = async (project: string) => {
    const res = await server.app.inject({ method: 'POST', url: `/api/projects/${project}/init` });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<InitBody>().repositories[0]!;
  };
  const initPrs = (host: CodeHost) => host.pullRequests().filter((pr) => pr.head === INIT);

  it('the model writes principles.md and rewrites context.yaml: the pull request adds its principles.md, context.yaml stays byte for byte', async () => {
    model.script({
      match: 'Repository rewrite lacks',
      turns: [
        { toolCalls: [{ name: 'write_file', input: { path: MAIN_PRINCIPLES, content: MODEL_PRINCIPLES } }] },
        { toolCalls: [{ name: 'write_file', input: { path: MAIN_YAML, content: 'name: main\npath: .\ntest: [make check]\n' } }] },
        { toolCalls: [{ name: 'finish', input: { summary: 'Wrote the principles and tidied context.yaml.' } }] },
      ],
    });
    const base = branchTip(rewrite.bare, 'main');
    const result = await init('rewrite');
    expect(result, JSON.stringify(result)).toMatchObject({ repo: 'rewrite', status: 'opened', files: [MAIN_PRINCIPLES], discarded: [`${MAIN_YAML} (modified)`] });
    expect(result.error).toBeUndefined();

    // The branch: one commit on main adding principles.md (the model's), nothing else.
    expect(git(['rev-parse', `${INIT}~1`], { cwd: rewrite.bare })).toBe(base);
    expect(diffOf(rewrite.bare)).toEqual([`A\t${MAIN_PRINCIPLES}`]);
    expect(fileAt(rewrite.bare, INIT, MAIN_PRINCIPLES)).toBe(MODEL_PRINCIPLES);
    expect(blobOf(rewrite.bare, INIT, MAIN_YAML)).toBe(blobOf(rewrite.bare, 'main', MAIN_YAML));
    expect(fileAt(rewrite.bare, INIT, MAIN_YAML)).toBe(OWN_YAML);
    expect(branchTip(rewrite.bare, 'main')).toBe(base);

    // The pull request says what was dropped and why.
    const prs = initPrs(rewrite);
    expect(prs).toHaveLength(1);
    expect(prs[0]).toMatchObject({ number: result.pullRequest!.number, base: 'main', open: true });
    expect(prs[0]!.body).toContain(SERVICE_MARKER);
    expect(prs[0]!.body).toContain(`\`${MAIN_PRINCIPLES}\``);
    expect(prs[0]!.body).toMatch(/\*\*Discarded\.\*\* .*`\.service\/contexts\/main\/context\.yaml` \(modified\).*never overwrites/);
  }, 90_000);

  it('run again, it finds the same pull request, pushes nothing and keeps saying what was dropped', async () => {
    const tip = branchTip(rewrite.bare, INIT);
    const before = initPrs(rewrite)[0]!.body;
    const result = await init('rewrite');
    expect(result).toMatchObject({ repo: 'rewrite', status: 'updated', files: [MAIN_PRINCIPLES] });
    expect(result.discarded).toBeUndefined();
    expect(branchTip(rewrite.bare, INIT)).toBe(tip);
    expect(initPrs(rewrite)).toHaveLength(1);
    expect(initPrs(rewrite)[0]!.body).toBe(before);
  }, 90_000);

  it('links, folders, deletions, renames and files elsewhere are dropped too; what the model left unusable comes from the template', async () => {
    model.script({
      match: 'Repository wide lacks',
      turns: [
        // principles.md of main as a link to the existing context.yaml; jobs' as a folder.
        { toolCalls: [{ name: 'bash', input: { command: `ln -s context.yaml ${MAIN_PRINCIPLES} && mkdir -p ${JOBS_PRINCIPLES} && echo notes > ${JOBS_PRINCIPLES}/notes.md` } }] },
        { toolCalls: [{ name: 'bash', input: { command: 'rm README.md && mv src/app.js src/main.js && ln -s /etc/passwd leak && mkdir -p docs' } }] },
        { toolCalls: [{ name: 'write_file', input: { path: 'docs/extra.md', content: 'extra\n' } }] },
        { toolCalls: [{ name: 'finish', input: { summary: 'Done.' } }] },
      ],
    });
    const base = branchTip(wide.bare, 'main');
    const result = await init('wide');
    expect(result, JSON.stringify(result)).toMatchObject({ repo: 'wide', status: 'opened', files: [JOBS_PRINCIPLES, MAIN_PRINCIPLES] });
    expect([...result.discarded!].sort()).toEqual([
      `${JOBS_PRINCIPLES}/notes.md (added)`,
      `${MAIN_PRINCIPLES} (added)`,
      'README.md (deleted)',
      'docs/extra.md (added)',
      'leak (added)',
      'src/app.js (deleted)',
      'src/main.js (added)',
    ]);

    expect(git(['rev-parse', `${INIT}~1`], { cwd: wide.bare })).toBe(base);
    expect(diffOf(wide.bare)).toEqual([`A\t${JOBS_PRINCIPLES}`, `A\t${MAIN_PRINCIPLES}`]);
    // Plain files from the template, never the link or the folder.
    const tree = treeOf(wide.bare, INIT);
    expect(tree.get(MAIN_PRINCIPLES)).toBe('100644 blob');
    expect(tree.get(JOBS_PRINCIPLES)).toBe('100644 blob');
    expect(fileAt(wide.bare, INIT, MAIN_PRINCIPLES)).toMatch(/^# Principles of the `main` context/);
    expect(fileAt(wide.bare, INIT, JOBS_PRINCIPLES)).toMatch(/^# Principles of the `jobs` context/);
    for (const path of [MAIN_YAML, JOBS_YAML, 'README.md', 'src/app.js']) expect(blobOf(wide.bare, INIT, path)).toBe(blobOf(wide.bare, 'main', path));
    expect(initPrs(wide)).toHaveLength(1);
    expect(initPrs(wide)[0]!.body).toContain('`leak` (added)');
  }, 90_000);
});
