import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AjvDraft04 from 'ajv-draft-04';
import ajvFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import { SERVICE_MARKER } from '../../src/platforms/service-marker.js';
import { githubExample, loadFixture } from '../fixtures/payload-fixtures.js';
import { NpmRegistryStandIn } from '../security-scan/npm-registry-stand-in.js';
import type { GitHubStandIn } from '../stand-ins/github-stand-in.js';
import type { GitLabStandIn } from '../stand-ins/gitlab-stand-in.js';
import { branchTip, commitFiles, git } from '../stand-ins/git-repositories.js';
import { ModelStandIn } from '../stand-ins/model-stand-in.js';
import { eventually } from '../support/eventually.js';
import { type CodeHost, startCodeHost } from '../workspaces/support/code-hosts.js';
import { GIT_IDENTITY } from '../workspaces/support/publish-config.js';
import { PublishServer } from '../workspaces/support/publish-server.js';
import { CONTEXT_FILES } from './support/code-scenarios.js';

/**
 * `security-scan` end to end, started the way users start it: a label on a pull request
 * (GitHub `pull_request` `labeled`, GitLab `Merge Request Hook`, the documented payloads) through
 * the server's webhook route. Real git remotes behind the hosts' stand-ins, the real npm against a
 * stand-in registry's advisory endpoint, the model stand-in for the review and the refutation.
 * What the run's SARIF, its report and the pull request's comments say is asserted.
 */
const schema = JSON.parse(readFileSync(new URL('../fixtures/sarif/sarif-schema-2.1.0.json', import.meta.url), 'utf8'));
const ajv = new AjvDraft04.default({ allErrors: true, strict: false });
ajvFormats.default(ajv);
const validateSarif = ajv.compile(schema);

const PLANTED = ['ghp', '_', 'Pl4nt3dT0k3nXq9ZtW4vN7mK3pYc6bHs1dFg5'].join('');
const FORK_PLANTED = ['ghp', '_', 'F0rkS3cr3tYc6bHs1dFg5jAe0uQiR8x2Lq9Zt'].join('');
const GHSA = 'GHSA-xvch-5gv4-984h';

const registry = new NpmRegistryStandIn(
  { minimist: [{ id: 1097678, url: `https://github.com/advisories/${GHSA}`, title: 'Prototype Pollution in minimist', severity: 'critical', vulnerable_versions: '>=1.0.0 <1.2.6', cwe: ['CWE-1321'], cvss: { score: 9.8, vectorString: null } }] },
  { minimist: { '1.2.5': {}, '1.2.6': {} } },
);

/** A project with a vulnerable lockfile and an `.npmrc` naming the registry (as a real project's would). */
function dependencyFiles(registryUrl: string): Record<string, string> {
  const dependencies = { minimist: '^1.2.0' };
  return {
    '.npmrc': `registry=${registryUrl}\n`,
    'package.json': JSON.stringify({ name: 'shop', version: '1.0.0', dependencies }, null, 2),
    'package-lock.json': JSON.stringify({
      name: 'shop', version: '1.0.0', lockfileVersion: 3, requires: true,
      packages: { '': { name: 'shop', version: '1.0.0', dependencies }, 'node_modules/minimist': { version: '1.2.5' } },
    }, null, 2),
    'src/db.js': 'export function find(db, id) {\n  return db.query("SELECT * FROM users WHERE id = " + id);\n}\n',
  };
}

type Json = Record<string, unknown>;
const rec = (value: unknown): Json => value as Json;

function withTriggerLabel(tracker: Json, block: string, label: string): Json {
  return { ...tracker, [block]: { ...rec(tracker[block]), pr_trigger_label: label } };
}

interface Sarif {
  runs: { results: { ruleId: string; locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }[]; suppressions?: unknown[]; properties: { tool: string } }[] }[];
}

describe('security-scan end to end: the pull-request label trigger', () => {
  const token = `e2e-scan-${randomBytes(10).toString('hex')}`;
  const apiKey = `sk-model-${randomBytes(10).toString('hex')}`;
  let root: string;
  let github: CodeHost;
  let gitlab: CodeHost;
  let model: ModelStandIn;
  let server: PublishServer;

  beforeAll(async () => {
    await registry.start();
    root = mkdtempSync(join(tmpdir(), 'scan-e2e-'));
    github = await startCodeHost(Platform.GitHub, root, token, 'shop');
    gitlab = await startCodeHost(Platform.GitLab, root, token, 'shop-api');
    for (const host of [github, gitlab]) commitFiles(host.bare, 'main', { ...CONTEXT_FILES, ...dependencyFiles(registry.url) }, 'The shop');
    model = await ModelStandIn.start({ apiKey });
    server = await PublishServer.boot({
      git: GIT_IDENTITY,
      sandbox: { backend: 'in-process', cpu: 1, memory: '1Gi', allow_agents_in_process: true },
      agent: { provider: 'openai', model: 'gpt-5.1', base_url: model.baseUrl, api_key: apiKey, max_steps: 20, step_timeout_seconds: 120, requests_per_minute: 6000 },
      projects: {
        shop: { ...withTriggerLabel(github.trackerConfig('done', 'code'), 'platform_a_trigger', 'sec-check'), repos: [github.repoEntry()] },
        api: { ...gitlab.trackerConfig('done', 'code'), repos: [gitlab.repoEntry()] },
      },
    });
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await model?.close();
    await github?.stop();
    await gitlab?.stop();
    await registry.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  async function deliver(url: string, headers: Record<string, string>, body: Json): Promise<{ status: number; body: string }> {
    const res = await server.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(body) });
    return { status: res.statusCode, body: res.body };
  }

  function labeledOnGitHub(number: number, label: string): Json {
    const body = githubExample('pull_request', 'labeled');
    body['number'] = number;
    rec(body['pull_request'])['number'] = number;
    rec(body['label'])['name'] = label;
    rec(body['repository'])['html_url'] = `${(github.standIn as GitHubStandIn).url}/acme/shop`;
    return body;
  }

  /** The run the label started, once it ended. */
  async function scanOf(project: string, repo: string, number: number) {
    const runId = await eventually(async () => {
      const { rows } = await server.db.query<{ id: string }>(`SELECT id FROM runs WHERE project = $1 AND target ->> 'repo' = $2 AND (target ->> 'number')::int = $3 ORDER BY created_at DESC`, [project, repo, number]);
      return rows[0]?.id;
    }, 10_000, `the scan of ${repo}#${number}`);
    return { runId, ...(await server.finished(runId, 90_000)) };
  }

  async function artifact<T>(runId: string, name: string): Promise<{ status: number; type: string | undefined; text: string; json: () => T }> {
    const res = await server.app.inject({ method: 'GET', url: `/api/runs/${runId}/artifacts/${name}` });
    return { status: res.statusCode, type: res.headers['content-type'] as string | undefined, text: res.body, json: () => JSON.parse(res.body) as T };
  }

  it('GitHub: security-review on a pull request scans its head; the SARIF names the planted secret and the vulnerable dependency, a refuted model finding is suppressed, the pull request gets the summary', async () => {
    const gh = github.standIn as GitHubStandIn;
    commitFiles(github.bare, 'feature/config', { 'src/config.js': `export const token = "${PLANTED}";\n` }, 'Add the configuration', 'main');
    const number = gh.openPullRequest({ head: 'feature/config', title: 'Configuration' });
    const tips = { main: branchTip(github.bare, 'main'), head: branchTip(github.bare, 'feature/config') };
    model.script({
      match: 'What the deterministic scanners found',
      turns: [
        { toolCalls: [{ name: 'read_file', input: { path: 'src/db.js' } }] },
        { toolCalls: [{ name: 'report_finding', input: { path: 'src/db.js', line: 2, severity: 'high', title: 'SQL injection in find', detail: 'id is concatenated into the query.' } }] },
        { toolCalls: [{ name: 'finish', input: { summary: 'One injection besides what the scanners found.' } }] },
      ],
    });
    model.script({
      match: 'SQL injection in find',
      turns: [{ toolCalls: [{ name: 'finish', input: { summary: 'REFUTED: every caller passes a validated integer id.' } }] }],
    });

    const answer = await deliver('/webhook/platform-a', { 'X-GitHub-Event': 'pull_request', 'X-GitHub-Delivery': randomUUID() }, labeledOnGitHub(number, 'security-review'));
    expect(answer).toEqual({ status: 202, body: `Accepted: shop#${number} in shop` });
    const { runId, state, error } = await scanOf('shop', 'shop', number);
    // fail_on: high (the default): the planted token and the critical advisory fail the run.
    expect(state).toBe('failed');
    expect(error).toMatch(/security-scan found \d+ finding\(s\) at or above high/);

    const sarif = await artifact<Sarif>(runId, 'security-scan.sarif');
    expect(sarif.status).toBe(200);
    expect(sarif.type).toContain('application/sarif+json');
    expect(validateSarif(sarif.json()), JSON.stringify(validateSarif.errors)).toBe(true);
    const results = sarif.json().runs[0]!.results;
    const at = (r: Sarif['runs'][0]['results'][0]) => `${r.locations[0]!.physicalLocation.artifactLocation.uri}:${r.locations[0]!.physicalLocation.region.startLine}`;
    expect(results.find((r) => r.ruleId === 'github-token')).toMatchObject({ properties: { tool: 'secrets' } });
    expect(at(results.find((r) => r.ruleId === 'github-token')!)).toBe('src/config.js:1');
    expect(results.some((r) => r.ruleId.startsWith('npm-audit/') && r.ruleId.includes(GHSA))).toBe(true);
    const injection = results.find((r) => r.properties.tool === 'model');
    expect(injection?.suppressions).toHaveLength(1);
    expect(sarif.text).not.toContain(PLANTED);

    const report = await artifact<never>(runId, 'security-scan.md');
    expect(report.status).toBe(200);
    expect(report.text).toContain('minimist');
    expect(report.text).not.toContain(PLANTED);

    // The summary on the pull request, once; the model's own work was told about the scanners.
    const summaries = gh.pulls.get(number).comments.filter((c) => c.body.includes('pipeline-service:security-scan'));
    expect(summaries).toHaveLength(1);
    expect(summaries[0]!.body).toContain(SERVICE_MARKER);
    expect(summaries[0]!.body).toContain('failed');
    expect(summaries[0]!.body).not.toContain(PLANTED);
    const first = model.modelCalls().find((c) => c.body.includes('What the deterministic scanners found'))!;
    expect(first.text).toMatch(/<untrusted-data[^>]*>[\s\S]*high src\/config.js:1 [\s\S]*<\/untrusted-data/);
    expect(first.body).not.toContain(PLANTED);

    // Events: the scanners, every model and tool call, the challenge; nothing pushed anywhere.
    const events = await server.events(runId);
    expect(events.some((e) => e.text.includes(`tree of pull request #${number}`))).toBe(true);
    expect(events.some((e) => /REFUTED|refuted/.test(e.text))).toBe(true);
    expect(events.filter((e) => e.kind === 'model-call').length).toBe(4);
    expect(branchTip(github.bare, 'main')).toBe(tips.main);
    expect(branchTip(github.bare, 'feature/config')).toBe(tips.head);
    const resource = await server.get<{ target: unknown; usage: { modelCalls: number } }>(`/api/runs/${runId}`);
    expect(resource.body).toMatchObject({ target: { repo: 'shop', number }, usage: { modelCalls: 4 } });
  }, 120_000);

  it("GitHub: the project's pr_trigger_label starts a scan too; a fork's pull request is scanned from the head the base repository keeps, without pushing anything", async () => {
    const gh = github.standIn as GitHubStandIn;
    const fork = join(root, 'fork.git');
    git(['clone', '--quiet', '--bare', github.bare, fork]);
    commitFiles(fork, 'patch-1', { 'lib/keys.js': `module.exports = "${FORK_PLANTED}";\n` }, 'A contribution', 'main');
    const number = gh.openPullRequest({ head: 'patch-1', fork: { repository: fork, owner: 'contributor' }, title: 'Contribution' });
    model.script({ match: 'Contribution', turns: [{ toolCalls: [{ name: 'finish', input: { summary: 'Nothing beyond the scanners.' } }] }] });
    // Project shop says `pr_trigger_label: sec-check`.

    const answer = await deliver('/webhook/platform-a', { 'X-GitHub-Event': 'pull_request', 'X-GitHub-Delivery': randomUUID() }, labeledOnGitHub(number, 'Sec-Check'));
    expect(answer.status).toBe(202);
    const { runId, state } = await scanOf('shop', 'shop', number);
    expect(state).toBe('failed');
    const results = (await artifact<Sarif>(runId, 'security-scan.sarif')).json().runs[0]!.results;
    expect(results.map((r) => r.locations[0]!.physicalLocation.artifactLocation.uri)).toContain('lib/keys.js');
    const events = await server.events(runId);
    expect(events.some((e) => e.text.includes('fork head patch-1'))).toBe(true);
    expect(branchTip(github.bare, 'patch-1')).toBeNull();
    expect(await server.allEventTexts().then((texts) => texts.some((t) => t.includes(token)))).toBe(false);
  }, 120_000);

  it('GitLab: a merge-request update carrying the label scans the head the same way', async () => {
    const gl = gitlab.standIn as GitLabStandIn;
    commitFiles(gitlab.bare, 'feature/keys', { 'src/keys.js': `export const key = "${PLANTED}";\n` }, 'Keys', 'main');
    const iid = gl.openPullRequest({ head: 'feature/keys', title: 'Keys for the API' });
    model.script({ match: 'Keys for the API', turns: [{ toolCalls: [{ name: 'finish', input: { summary: 'Nothing else.' } }] }] });
    const body = loadFixture('gitlab', 'merge-request-hook');
    rec(body['object_attributes'])['iid'] = iid;
    rec(body['object_attributes'])['action'] = 'update';
    rec(body['project'])['web_url'] = `${gl.url}/fin/shop-api`;
    body['labels'] = [{ id: 1, title: 'security-review' }];
    delete body['changes'];
    const answer = await deliver('/webhook/platform-b', { 'X-Gitlab-Event': 'Merge Request Hook' }, body);
    expect(answer).toEqual({ status: 202, body: `Accepted: shop-api#${iid} in api` });
    const { runId, state } = await scanOf('api', 'shop-api', iid);
    expect(state).toBe('failed');
    const results = (await artifact<Sarif>(runId, 'security-scan.sarif')).json().runs[0]!.results;
    expect(results.some((r) => r.ruleId === 'github-token')).toBe(true);
    expect(results.some((r) => r.ruleId.includes(GHSA))).toBe(true);
    const notes = gl.mergeRequests.reviews.notesOf(gl.mergeRequests.get(iid));
    expect(notes.filter((n) => n.body.includes('pipeline-service:security-scan'))).toHaveLength(1);
  }, 120_000);
});
