import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import { commitFiles, fileAt, show } from '../stand-ins/git-repositories.js';
import { ModelStandIn } from '../stand-ins/model-stand-in.js';
import { OidcAuthority } from '../stand-ins/oidc-authority.js';
import { eventually } from '../support/eventually.js';
import { type CodeHost, DONE_STATUS, startCodeHost } from '../workspaces/support/code-hosts.js';
import { GIT_IDENTITY } from '../workspaces/support/publish-config.js';
import { PublishServer } from '../workspaces/support/publish-server.js';
import { CONTEXT_FILES } from './support/code-scenarios.js';

/**
 * Acceptance criteria end to end: the whole server (enforcement on against a real OIDC
 * authority), the ticket and repository on the GitHub stand-in, the model stand-in scripted to
 * call `report_criterion`. A ticket with three criteria ends Done when all are reported met and
 * Failed naming `c2` when it is unmet; a person's judgement overrules a verdict without changing
 * the run, attributed to the caller and counted in the statistics.
 */
interface Criterion { id: string; text: string; verdict: string | null; evidence: string | null; judgement: { verdict: string; reason: string; by: string; at: string } | null }
interface RunBody { id: string; state: string; error: string | null; criteria: Criterion[] }

const OPERATOR = 'olga@acme.test';
const THREE_CRITERIA = [
  'Some words first.',
  '',
  '```',
  '## Acceptance criteria',
  '- [ ] a fake criterion inside a code block',
  '```',
  '',
  '## Acceptance criteria',
  '',
  '- [ ] greeting.txt says hello',
  '- [ ] the greeting ends with a newline',
  '- [ ] the tests pass',
  '',
  '## Notes',
  '- [ ] not a criterion',
].join('\n');

describe('acceptance criteria of code runs, end to end (tickets on GitHub)', () => {
  const token = `e2e-criteria-${randomBytes(10).toString('hex')}`;
  const apiKey = `sk-model-${randomBytes(10).toString('hex')}`;
  let root: string;
  let host: CodeHost;
  let model: ModelStandIn;
  let idp: OidcAuthority;
  let server: PublishServer;
  let operator: string;
  let reader: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'criteria-e2e-'));
    host = await startCodeHost(Platform.GitHub, root, token, 'greeter');
    commitFiles(host.bare, 'main', CONTEXT_FILES, 'Add the contexts');
    model = await ModelStandIn.start({ apiKey });
    idp = await OidcAuthority.start();
    server = await PublishServer.boot({
      auth: { authority: idp.authority, audience: idp.defaultAudience, enforce: true, name_claim: 'preferred_username' },
      git: GIT_IDENTITY,
      sandbox: { backend: 'in-process', cpu: 1, memory: '1Gi', allow_agents_in_process: true },
      agent: { provider: 'openai', model: 'gpt-5.1', base_url: model.baseUrl, api_key: apiKey, max_steps: 20, step_timeout_seconds: 120, requests_per_minute: 6000 },
      projects: {
        app: { ...host.trackerConfig(DONE_STATUS[Platform.GitHub], 'code'), repos: [host.repoEntry()] },
        // The same repository and tracker, with the check turned off.
        lax: { ...host.trackerConfig(DONE_STATUS[Platform.GitHub], 'code'), repos: [host.repoEntry()], criteria: { enforce: false } },
      },
    });
    operator = idp.mint({ sub: 'user-olga', claims: { preferred_username: OPERATOR, roles: ['operator'] } });
    reader = idp.mint({ sub: 'user-rita', claims: { preferred_username: 'rita@acme.test', roles: ['reader'] } });
  }, 90_000);

  afterAll(async () => {
    await server?.close();
    await model?.close();
    await idp?.stop();
    await host?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  async function api<T>(method: 'GET' | 'POST', url: string, bearer: string | null, payload?: unknown): Promise<{ status: number; body: T }> {
    const res = await server.app.inject({
      method, url, headers: { ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
    return { status: res.statusCode, body: res.json() as T };
  }
  const runOf = async (id: string) => (await api<RunBody>('GET', `/api/runs/${id}`, reader)).body;
  const statistics = async () => (await api<{ criteria: Record<string, number> }>('GET', '/api/runs/statistics?project=app', reader)).body.criteria;
  const writeGreeting = { toolCalls: [{ name: 'write_file', input: { path: 'greeting.txt', content: 'hello\n' } }] };
  const report = (id: string, verdict: string, evidence: string) => ({ name: 'report_criterion', input: { id, verdict, evidence } });

  it('three criteria reported met: the run ends Done, its criteria carry the verdicts, the pull request lists them', async () => {
    const title = 'Greet with criteria CRIT-41';
    host.addTicket('41', title, THREE_CRITERIA);
    model.script({
      match: 'CRIT-41',
      turns: [
        writeGreeting,
        { toolCalls: [report('c1', 'met', 'greeting.txt holds hello'), report('c2', 'met', 'it ends with \\n'), report('c3', 'met', 'sh test.sh exits 0')] },
        { toolCalls: [{ name: 'finish', input: { summary: 'Added greeting.txt saying hello.' } }] },
      ],
    });
    const { runId, state, error } = await server.run(Platform.GitHub, 'app', '41', 'code', 60_000);
    expect({ state, error }).toEqual({ state: 'succeeded', error: null });

    const run = await runOf(runId);
    expect(run.criteria).toEqual([
      { id: 'c1', text: 'greeting.txt says hello', verdict: 'met', evidence: 'greeting.txt holds hello', judgement: null },
      { id: 'c2', text: 'the greeting ends with a newline', verdict: 'met', evidence: 'it ends with \\n', judgement: null },
      { id: 'c3', text: 'the tests pass', verdict: 'met', evidence: 'sh test.sh exits 0', judgement: null },
    ]);
    // The model was offered report_criterion and given the criteria inside an untrusted-data block.
    const first = model.modelCalls().find((r) => r.body.includes('CRIT-41'))!;
    expect(first.tools).toContain('report_criterion');
    expect(first.text).toMatch(/<untrusted-data[^>]*ticket-criteria[^>]*>[\s\S]*c1: greeting\.txt says hello\nc2: the greeting ends with a newline\nc3: the tests pass[\s\S]*<\/untrusted-data/);
    expect(first.text).not.toContain('c4:');

    const pr = host.pullRequests().find((p) => p.head === 'service/41')!;
    expect(pr.body).toContain('- c1 (met): greeting.txt says hello');
    expect(pr.body).toContain('- c2 (met): the greeting ends with a newline');
    expect(pr.body).toContain('- c3 (met): the tests pass');
    await eventually(() => (host.labels('41').includes('service:done') ? true : undefined), 15_000, 'ticket 41 to be service:done');
  }, 120_000);

  it('c2 reported unmet: the run ends Failed naming c2 (an unknown id was a tool error for the model), no pull request; a judgement overrules it without changing the run', async () => {
    const title = 'Greet with criteria CRIT-42';
    host.addTicket('42', title, THREE_CRITERIA);
    model.script({
      match: 'CRIT-42',
      turns: [
        writeGreeting,
        { toolCalls: [report('c9', 'met', 'no such criterion')] },
        { toolCalls: [report('c1', 'met', 'says hello'), report('c2', 'unmet', 'I could not check the newline'), report('c3', 'met', 'green')] },
        { toolCalls: [{ name: 'finish', input: { summary: 'Added greeting.txt.' } }] },
      ],
    });
    const { runId, state, error } = await server.run(Platform.GitHub, 'app', '42', 'code', 60_000);
    expect({ state, error }).toEqual({ state: 'failed', error: expect.stringMatching(/^acceptance criteria not met: c2(;|$)/) });
    // The model was told the id was unknown, naming the ones the run has.
    const third = model.modelCalls().filter((r) => r.body.includes('CRIT-42'))[2]!;
    expect(third.body).toContain('there is no criterion c9');
    expect(third.body).toContain('c1, c2, c3');
    // No pull request; the work is pushed as wip, naming the failed step.
    expect(host.pullRequests().filter((p) => p.head === 'service/42')).toEqual([]);
    expect(fileAt(host.bare, 'service/42', 'greeting.txt')).toBe('hello\n');
    expect(show(host.bare, 'service/42', '%B')).toContain('Failed-Step: criteria');
    // The ticket's failure comment names c2.
    await eventually(() => host.comments('42').find((c) => c.includes('acceptance criteria not met: c2')), 15_000, 'the failure comment naming c2');

    const before = await statistics();
    expect(before).toEqual({ met: 5, unmet: 1, notApplicable: 0, overruled: 0 });

    // Judging: runs.control only, a reason required, unknown ids are 404s.
    const path = `/api/runs/${runId}/criteria/c2/judge`;
    expect((await api('POST', path, reader, { verdict: 'met', reason: 'checked' })).status).toBe(403);
    const noReason = await api<{ error: string }>('POST', path, operator, { verdict: 'met' });
    expect(noReason.status).toBe(400);
    expect(noReason.body.error).toMatch(/reason/);
    expect((await api('POST', path, operator, { verdict: 'met', reason: '   ' })).status).toBe(400);
    expect((await api('POST', path, operator, { verdict: 'perfect', reason: 'x' })).status).toBe(400);
    expect((await api('POST', `/api/runs/${runId}/criteria/c7/judge`, operator, { verdict: 'met', reason: 'x' })).status).toBe(404);
    expect((await api('POST', '/api/runs/00000000-0000-4000-8000-000000000000/criteria/c1/judge', operator, { verdict: 'met', reason: 'x' })).status).toBe(404);

    const judged = await api<{ run: RunBody }>('POST', path, operator, { verdict: 'met', reason: 'The file ends with a newline: I checked it.' });
    expect(judged.status).toBe(200);
    expect(judged.body.run.state).toBe('failed');
    expect(judged.body.run.error).toBe(error);
    const c2 = judged.body.run.criteria.find((c) => c.id === 'c2')!;
    expect(c2).toMatchObject({ verdict: 'unmet', evidence: 'I could not check the newline' });
    expect(c2.judgement).toEqual({ verdict: 'met', reason: 'The file ends with a newline: I checked it.', by: OPERATOR, at: expect.any(String) });
    expect(new Date(c2.judgement!.at).toISOString()).toBe(c2.judgement!.at);
    // The run itself did not change: still failed, the same error, the ticket not re-run.
    const after = await runOf(runId);
    expect({ state: after.state, error: after.error }).toEqual({ state: 'failed', error });
    expect(await statistics()).toEqual({ met: 5, unmet: 1, notApplicable: 0, overruled: 1 });
    expect((await server.events(runId)).filter((e) => e.kind === 'criteria').map((e) => e.text)).toContain(`c2 judged met by ${OPERATOR}: The file ends with a newline: I checked it.`);
    // Judging a criterion the agent got right as met again is no overruling.
    expect((await api('POST', `/api/runs/${runId}/criteria/c1/judge`, operator, { verdict: 'met', reason: 'Agreed.' })).status).toBe(200);
    expect((await statistics()).overruled).toBe(1);
  }, 120_000);
  it('with criteria.enforce false, c2 unmet and c3 unreported only show: the run ends Done and its pull request lists them so', async () => {
    const title = 'Greet with criteria CRIT-43';
    host.addTicket('43', title, THREE_CRITERIA);
    model.script({
      match: 'CRIT-43',
      turns: [
        writeGreeting,
        { toolCalls: [report('c1', 'met', 'says hello'), report('c2', 'unmet', 'no newline check')] },
        { toolCalls: [{ name: 'finish', input: { summary: 'Added greeting.txt.' } }] },
      ],
    });
    const { runId, state, error } = await server.run(Platform.GitHub, 'lax', '43', 'code', 60_000);
    expect({ state, error }).toEqual({ state: 'succeeded', error: null });
    expect((await runOf(runId)).criteria.map((c) => [c.id, c.verdict])).toEqual([['c1', 'met'], ['c2', 'unmet'], ['c3', null]]);
    expect((await server.events(runId)).filter((e) => e.kind === 'criteria').map((e) => e.text))
      .toContain('acceptance criteria not met: c2; not reported: c3 (not enforced in this project: the run goes on)');
    const pr = host.pullRequests().find((p) => p.head === 'service/43')!;
    expect(pr.body).toContain('- c2 (NOT met): the greeting ends with a newline');
    expect(pr.body).toContain('- c3 (not reported): the tests pass');
  }, 120_000);
});
