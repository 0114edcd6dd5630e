import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import { CONTEXT_FILES } from '../agent/support/code-scenarios.js';
import { commitFiles } from '../stand-ins/git-repositories.js';
import { ModelStandIn } from '../stand-ins/model-stand-in.js';
import { type OpenApiDocument, type Schema, schemaViolations } from '../support/schema-conformance.js';
import { type CodeHost, DONE_STATUS, startCodeHost } from '../workspaces/support/code-hosts.js';
import { GIT_IDENTITY } from '../workspaces/support/publish-config.js';
import { PublishServer } from '../workspaces/support/publish-server.js';

/**
 * Skills end to end: the whole server with a repository on the GitHub stand-in (a real git
 * remote) holding `.service/skills/` with a good and a malformed skill, a configured
 * `skills.paths` folder, the package's built-in skills, the catalog routes, and a `code` run
 * whose model (the stand-in, over the OpenAI Responses wire format) calls `load_skill`.
 */
const skillText = (token: string) => [
  '---',
  'name: deploy-notes',
  'description: How this repository is deployed. REPO-SKILL-DESCRIPTION-5d1.',
  'pipelines: [code]',
  '---',
  '# Deploy notes',
  '',
  'Greetings files end with a newline. REPO-SKILL-BODY-9f2.',
  '',
  `Someone committed the repository token here: ${token}`,
  '',
].join('\n');

describe('skills: the catalog and load_skill', () => {
  const token = `e2e-skills-${randomBytes(10).toString('hex')}`;
  const apiKey = `sk-model-${randomBytes(10).toString('hex')}`;
  let root: string;
  let host: CodeHost;
  let model: ModelStandIn;
  let server: PublishServer;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'skills-e2e-'));
    host = await startCodeHost(Platform.GitHub, root, token, 'greeter');
    commitFiles(host.bare, 'main', {
      ...CONTEXT_FILES,
      '.service/skills/deploy-notes/SKILL.md': skillText(token),
      '.service/skills/deploy-notes/checklist.md': '- [ ] deployed\n',
      // The repository's own security review: wins over the built-in one for this project's runs.
      '.service/skills/security-review/SKILL.md': '---\nname: security-review\ndescription: Our own review. REPO-SECURITY-7a1.\npipelines: [pr-review]\n---\nOURS\n',
      '.service/skills/broken-skill/SKILL.md': '---\nname: broken-skill\n---\nNo description.\n',
    }, 'Add contexts and skills');
    // A skill only on a work branch is never offered: skills come from the default branch.
    commitFiles(host.bare, 'feature', { '.service/skills/sneaky/SKILL.md': '---\nname: sneaky\ndescription: s\n---\nSNEAKY\n' }, 'Sneak a skill', 'main');
    const configured = join(root, 'operator-skills', 'house-style');
    mkdirSync(configured, { recursive: true });
    writeFileSync(join(configured, 'SKILL.md'), '---\nname: house-style\ndescription: The house style. CONFIGURED-SKILL-3c4.\n---\nWrite plainly.\n');
    model = await ModelStandIn.start({ apiKey });
    server = await PublishServer.boot({
      git: GIT_IDENTITY,
      sandbox: { backend: 'in-process', cpu: 1, memory: '1Gi', allow_agents_in_process: true },
      agent: { provider: 'openai', model: 'gpt-5.1', base_url: model.baseUrl, api_key: apiKey, max_steps: 20, step_timeout_seconds: 120, requests_per_minute: 6000 },
      skills: { paths: [join(root, 'operator-skills')] },
      projects: {
        app: { ...host.trackerConfig(DONE_STATUS[Platform.GitHub], 'code'), repos: [host.repoEntry()] },
        // A repository the git remote does not have: its skills cannot be read, which is a finding, not a failure.
        offline: { tracker: 'platform-a', repos: [host.repoEntry({ name: 'nowhere', url: String(host.repoEntry().url).replace(/greeter$/, 'nowhere'), branch: 'main' })] },
      },
    });
  }, 90_000);

  afterAll(async () => {
    await server?.close();
    await model?.close();
    await host?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  interface CatalogBody {
    skills: { name: string; description: string; source: string; repository: string | null; project: string | null; pipelines: string[] | null }[];
    findings: { subsystem: string; severity: string; reason: string; project: string | null }[];
  }

  it('lists a built-in, a configured and a repository skill, and makes the malformed one an advisory finding naming its path', async () => {
    const { status, body } = await server.get<CatalogBody>('/api/catalog');
    expect(status).toBe(200);
    const byName = Object.fromEntries(body.skills.map((s) => [s.name, s]));
    expect(byName['pull-request-description']).toMatchObject({ source: 'builtin', repository: null, project: null, pipelines: ['code'] });
    expect(byName['house-style']).toMatchObject({ source: 'configured', repository: null, description: 'The house style. CONFIGURED-SKILL-3c4.' });
    expect(byName['deploy-notes']).toEqual({
      name: 'deploy-notes', description: 'How this repository is deployed. REPO-SKILL-DESCRIPTION-5d1.', source: 'repository', repository: 'greeter', project: 'app', pipelines: ['code'],
    });
    expect(byName['broken-skill']).toBeUndefined();
    expect(byName['sneaky']).toBeUndefined();
    const malformed = { subsystem: 'skills', severity: 'advisory', project: 'app', reason: 'skill greeter:.service/skills/broken-skill is left out: the front matter has no description (a non-empty string)' };
    expect(body.findings).toContainEqual(expect.objectContaining(malformed));
    const unreadable = body.findings.find((f) => f.project === 'offline');
    expect(unreadable).toMatchObject({ subsystem: 'skills', severity: 'advisory' });
    expect(unreadable!.reason).toMatch(/^the skills of repository nowhere of project offline could not be read: /);
    expect(unreadable!.reason).not.toContain(token);
    // The same finding on the findings endpoint.
    const findings = await server.get<{ findings: CatalogBody['findings'] }>('/api/config/findings');
    expect(findings.body.findings).toContainEqual(expect.objectContaining(malformed));
  });

  it('shows one skill with its body and files, per project too, and refuses an unknown project or skill', async () => {
    const one = await server.get<{ name: string; source: string; body: string; files: string[]; repository: string }>('/api/catalog/skills/deploy-notes');
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ name: 'deploy-notes', source: 'repository', repository: 'greeter', files: ['checklist.md'] });
    expect(one.body.body).toBe('# Deploy notes\n\nGreetings files end with a newline. REPO-SKILL-BODY-9f2.\n\nSomeone committed the repository token here: ***');
    expect(JSON.stringify(one.body)).not.toContain(token);
    const builtin = await server.get<{ body: string; source: string }>('/api/catalog/skills/security-review');
    expect(builtin.body.source).toBe('builtin');
    expect(builtin.body.body).toContain('# Reviewing for security');
    const scoped = await server.get<CatalogBody>('/api/catalog?project=app');
    expect(scoped.body.findings.some((f) => f.project === 'offline')).toBe(false);
    // Within the project the repository's skill of a name wins; without one, both are listed, and the installation's is the one shown by name.
    expect(scoped.body.skills.find((s) => s.name === 'security-review')).toMatchObject({ source: 'repository', repository: 'greeter', description: 'Our own review. REPO-SECURITY-7a1.' });
    const all = await server.get<CatalogBody>('/api/catalog');
    expect(all.body.skills.filter((s) => s.name === 'security-review').map((s) => s.source)).toEqual(['builtin', 'repository']);
    expect((await server.get<{ body: string }>('/api/catalog/skills/security-review?project=app')).body.body).toBe('OURS');
    expect((await server.get<{ body: string }>('/api/catalog/skills/security-review?repository=greeter')).body.body).toBe('OURS');
    expect(scoped.body.skills.map((s) => s.name)).toEqual(['acceptance-criteria', 'asking-questions', 'deploy-notes', 'house-style', 'pull-request-description', 'security-review', 'writing-tickets']);
    expect((await server.get<{ error: string }>('/api/catalog?project=nope')).body).toEqual({ error: 'project "nope" is not configured' });
    expect((await server.get('/api/catalog?project=nope')).status).toBe(400);
    const missing = await server.get<{ error: string }>('/api/catalog/skills/no-such-skill');
    expect(missing).toEqual({ status: 404, body: { error: 'no skill named "no-such-skill"' } });
    expect((await server.get('/api/catalog/skills/..%2Fetc')).status).toBe(404);
  });

  it('answers what /api/docs/openapi.json documents for the catalog, a skill, a 400 and a 404', async () => {
    type Documented = OpenApiDocument & { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>> };
    const document = (await server.get<Documented>('/api/docs/openapi.json')).body;
    const violations = (path: string, status: number, body: unknown) => {
      const schema = document.paths[path]?.['get']?.responses[String(status)]?.content?.['application/json']?.schema;
      if (!schema) throw new Error(`no JSON schema documented for ${status} of GET ${path}`);
      return schemaViolations(document, schema, body);
    };
    const catalog = await server.get('/api/catalog');
    expect(violations('/api/catalog', 200, catalog.body)).toEqual([]);
    expect(violations('/api/catalog', 400, (await server.get('/api/catalog?project=nope')).body)).toEqual([]);
    expect(violations('/api/catalog/skills/{name}', 200, (await server.get('/api/catalog/skills/deploy-notes')).body)).toEqual([]);
    expect(violations('/api/catalog/skills/{name}', 404, (await server.get('/api/catalog/skills/nope')).body)).toEqual([]);
  });

  it('lists the skills in a code run\'s system prompt and answers load_skill with the body, a repository\'s inside an untrusted-data block', async () => {
    const title = 'Greet with a skill';
    host.addTicket('41', title, 'Add greeting.txt saying hello.');
    model.script({
      match: title,
      turns: [
        { toolCalls: [{ name: 'load_skill', input: { name: 'deploy-notes' } }] },
        { toolCalls: [{ name: 'load_skill', input: { name: 'pull-request-description' } }] },
        { toolCalls: [{ name: 'write_file', input: { path: 'greeting.txt', content: 'hello\n' } }] },
        { toolCalls: [{ name: 'finish', input: { summary: 'Added greeting.txt, following the deploy notes.' } }] },
      ],
    });
    const { runId, state, error } = await server.run(Platform.GitHub, 'app', '41', 'code', 60_000);
    expect({ state, error }).toEqual({ state: 'succeeded', error: null });
    const calls = model.modelCalls().filter((r) => r.body.includes(title));
    expect(calls).toHaveLength(4);
    // Offered as a tool, listed in the system prompt: the repository's inside an untrusted block, the security one not (pipelines).
    expect(calls[0]!.tools).toContain('load_skill');
    const first = calls[0]!.text;
    expect(first).toContain('`pull-request-description` (built in)');
    expect(first).toContain('`house-style` (configured by the operator)');
    expect(first).toMatch(/<untrusted-data source="repository-skills"[^>]*>[\s\S]*`deploy-notes` \(repository `greeter`\)[\s\S]*REPO-SKILL-DESCRIPTION-5d1[\s\S]*<\/untrusted-data/);
    expect(first).not.toContain('`security-review`');
    expect(first).not.toContain('sneaky');
    // load_skill answered the bodies.
    expect(calls[1]!.text).toMatch(/<untrusted-data source="repository-skill"[^>]*>\n# Deploy notes\n\nGreetings files end with a newline. REPO-SKILL-BODY-9f2.\n\nSomeone committed the repository token here: \*\*\*\n<\/untrusted-data/);
    expect(model.allRequestText()).not.toContain(token);
    expect(calls[1]!.text).toContain('`checklist.md`');
    expect(calls[2]!.text).toContain('# Writing the pull-request description');
    const events = await server.events(runId);
    expect(events.some((e) => e.text.startsWith('skills offered: acceptance-criteria, asking-questions, deploy-notes, house-style, pull-request-description'))).toBe(true);
    expect(events.filter((e) => e.kind === 'tool-call').map((e) => e.text.split(' →')[0])).toEqual(['load_skill: deploy-notes', 'load_skill: pull-request-description', 'write_file: greeting.txt', 'finish']);
  });
});
