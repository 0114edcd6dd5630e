import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../../src/platforms/platform.js';
import { SERVICE_MARKER } from '../../../src/platforms/service-marker.js';
import { branchTip, commitFiles, fileAt, show } from '../../stand-ins/git-repositories.js';
import { JiraStandIn } from '../../stand-ins/jira-stand-in.js';
import { ModelStandIn } from '../../stand-ins/model-stand-in.js';
import { eventually } from '../../support/eventually.js';
import { type CodeHost, DONE_STATUS, type HostKind, startCodeHost } from '../../workspaces/support/code-hosts.js';
import { GIT_IDENTITY } from '../../workspaces/support/publish-config.js';
import { PublishServer } from '../../workspaces/support/publish-server.js';

/** The repository's contexts: setup prepares (into ignored build/), the test checks the greeting. */
export const CONTEXT_FILES = {
  '.service/contexts/default/context.yaml': [
    'name: default',
    'path: .',
    'description: the greeting service',
    'setup:',
    '  - mkdir -p build && echo ready > build/setup.txt',
    'build:',
    '  - test -f build/setup.txt',
    'test:',
    '  - sh test.sh',
    '',
  ].join('\n'),
  '.service/contexts/default/principles.md': '# Principles\n\nGreetings are lowercase and end with a newline. PRINCIPLE-MARKER-7f3.\n',
  'test.sh': 'grep -qx hello greeting.txt || { echo "greeting.txt must say hello, it says: $(cat greeting.txt 2>/dev/null)"; exit 1; }\n',
};

/** Which provider each tracker's runs talk to, so every wire format is driven end to end once. */
export const PROVIDER_OF: Record<HostKind | typeof Platform.Jira, { provider: string; model: string; base: (m: ModelStandIn) => string }> = {
  [Platform.GitHub]: { provider: 'openai', model: 'gpt-5.1', base: (m) => m.baseUrl },
  [Platform.GitLab]: { provider: 'anthropic', model: 'claude-sonnet-4-5', base: (m) => m.baseUrl },
  [Platform.AzureDevOps]: { provider: 'openai-compatible', model: 'local-coder', base: (m) => m.baseUrl },
  [Platform.Jira]: { provider: 'azure-openai', model: 'coder-deployment', base: (m) => `${m.url}/openai` },
};

export interface TrackerUnderTest {
  kind: HostKind | typeof Platform.Jira;
  host: CodeHost;
  jira: JiraStandIn | null;
  /** The project's tracker settings. */
  trackerConfig(): Record<string, unknown>;
  ticketId(n: number): string;
  addTicket(ticket: string, title: string, description: string): void;
  addComment(ticket: string, body: string): void;
  comments(ticket: string): string[];
  labels(ticket: string): string[];
}

const JIRA_USER = 'pipeline-bot@acme.example';

async function trackerUnderTest(kind: HostKind | typeof Platform.Jira, host: CodeHost): Promise<TrackerUnderTest> {
  if (kind !== Platform.Jira) {
    return {
      kind, host, jira: null,
      trackerConfig: () => host.trackerConfig(DONE_STATUS[kind], 'code'),
      ticketId: (n) => String(n),
      addTicket: (ticket, title, description) => host.addTicket(ticket, title, description),
      addComment: (ticket, body) => host.addComment(ticket, body),
      comments: (ticket) => host.comments(ticket),
      labels: (ticket) => host.labels(ticket),
    };
  }
  const token = `jira-${randomBytes(8).toString('hex')}`;
  const jira = await new JiraStandIn(JIRA_USER, token).start();
  return {
    kind, host, jira,
    trackerConfig: () => ({
      tracker: 'platform-d',
      platform_d_trigger: {
        site_url: jira.siteUrl, project_key: 'APP', credentials: `${JIRA_USER}:${token}`,
        trigger_statuses: ['Ready for Agent'], default_pipeline: 'code', done_status: 'Done',
      },
    }),
    ticketId: (n) => `APP-${n}`,
    addTicket: (ticket, title, description) => void jira.addIssue(ticket, 'Ready for Agent', [], title, description),
    addComment: (ticket, body) => void jira.addComment(ticket, body),
    comments: (ticket) => jira.issues.get(ticket)?.comments.map((c) => c.body) ?? [],
    labels: (ticket) => [...(jira.issues.get(ticket)?.labels ?? [])],
  };
}

/**
 * The `code` pipeline end to end for one tracker: the whole server, a real git remote behind a
 * code host's stand-in, the ticket on the tracker's stand-in, and the model stand-in replaying a
 * scripted conversation over the provider's real wire format. What the remote, the host, the
 * ticket and the model's requests show afterwards is what is asserted.
 */
export function describeCodePipeline(kind: HostKind | typeof Platform.Jira): void {
  describe(`the code pipeline end to end: tickets on ${kind}`, () => {
    const token = `e2e-code-${randomBytes(10).toString('hex')}`;
    const apiKey = `sk-model-${randomBytes(10).toString('hex')}`;
    const hostKind: HostKind = kind === Platform.Jira ? Platform.GitHub : kind;
    let root: string;
    let host: CodeHost;
    let tracker: TrackerUnderTest;
    let model: ModelStandIn;
    let server: PublishServer;

    beforeAll(async () => {
      root = mkdtempSync(join(tmpdir(), 'code-e2e-'));
      host = await startCodeHost(hostKind, root, token, 'greeter');
      commitFiles(host.bare, 'main', CONTEXT_FILES, 'Add the contexts');
      tracker = await trackerUnderTest(kind, host);
      model = await ModelStandIn.start({ apiKey });
      const { provider, model: name, base } = PROVIDER_OF[kind];
      server = await PublishServer.boot({
        git: GIT_IDENTITY,
      // Model-driven commands on this host: the opt-in for development and tests.
      sandbox: { backend: 'in-process', cpu: 1, memory: '1Gi', allow_agents_in_process: true },
        agent: { provider, model: name, base_url: base(model), api_key: apiKey, max_steps: 20, step_timeout_seconds: 120, requests_per_minute: 6000 },
        projects: { app: { ...tracker.trackerConfig(), repos: [host.repoEntry()] } },
      });
    }, 60_000);

    afterAll(async () => {
      await server?.close();
      await model?.close();
      await tracker?.jira?.stop();
      await host?.stop();
      if (root) rmSync(root, { recursive: true, force: true });
    });

    const run = (ticket: string) => server.run(kind, 'app', ticket, 'code');
    const branchOf = (ticket: string) => `service/${ticket.replace(/[^A-Za-z0-9._-]/g, '-')}`;
    const prsOf = (branch: string) => host.pullRequests().filter((pr) => pr.head === branch);

    it('a ticket becomes a pull request carrying the scripted change, the declared tests pass, the ticket ends done with the comment', async () => {
      const ticket = tracker.ticketId(31);
      const title = 'Greet the visitors warmly';
      tracker.addTicket(ticket, title, 'Add greeting.txt saying hello. DESCRIPTION-MARKER-1a2.');
      model.script({
        match: title,
        turns: [
          { toolCalls: [{ name: 'read_file', input: { path: 'test.sh' } }], text: 'Reading the test first.' },
          { toolCalls: [{ name: 'write_file', input: { path: 'greeting.txt', content: 'hello\n' } }] },
          { toolCalls: [{ name: 'bash', input: { command: 'sh test.sh && echo TESTS-GREEN' } }] },
          { toolCalls: [{ name: 'finish', input: { summary: 'Added greeting.txt, which says hello.' } }] },
        ],
      });
      const base = branchTip(host.bare, 'main');
      const { runId, state, error } = await run(ticket);
      expect({ state, error }).toEqual({ state: 'succeeded', error: null });

      const branch = branchOf(ticket);
      expect(fileAt(host.bare, branch, 'greeting.txt')).toBe('hello\n');
      expect(show(host.bare, branch, '%P')).toBe(base);
      expect(show(host.bare, branch, '%s')).toBe(`code: ${title} (${ticket})`);
      const prs = prsOf(branch);
      expect(prs).toHaveLength(1);
      expect(prs[0]!.body).toContain(SERVICE_MARKER);
      expect(prs[0]!.body).toContain('Added greeting.txt, which says hello.');

      // The model was told the ticket (inside an untrusted-data block) and the context's principles.
      const calls = model.modelCalls().filter((r) => r.body.includes(title));
      expect(calls).toHaveLength(4);
      const first = calls[0]!.text;
      expect(first).toMatch(/<untrusted-data[^>]*>[\s\S]*DESCRIPTION-MARKER-1a2[\s\S]*<\/untrusted-data/);
      expect(first).toContain('PRINCIPLE-MARKER-7f3');
      expect(first).toContain('no earlier work on this ticket exists');
      // The model's own check ran in the sandbox and its output came back to it.
      expect(calls[3]!.text).toContain('TESTS-GREEN');

      // Every model call and tool call is an event; the run's usage is kept.
      const events = await server.events(runId);
      expect(events.filter((e) => e.kind === 'model-call')).toHaveLength(4);
      expect(events.filter((e) => e.kind === 'tool-call').map((e) => e.text.split(/[: ]/)[0])).toEqual(['read_file', 'write_file', 'bash', 'finish']);
      expect(events.some((e) => e.kind === 'stdout' && e.text === 'ready')).toBe(false); // setup wrote a file, printed nothing
      const resource = await server.get<{ usage: { modelCalls: number; inputTokens: number; outputTokens: number } }>(`/api/runs/${runId}`);
      expect(resource.body.usage.modelCalls).toBe(4);
      expect(resource.body.usage.inputTokens).toBeGreaterThan(0);

      // The ticket: done, with the comment listing the pull request.
      await eventually(() => (tracker.labels(ticket).includes('service:done') ? true : undefined), 15_000, `${ticket} to be service:done`);
      await eventually(() => tracker.comments(ticket).find((c) => c.includes(runId)), 15_000, `the comment on ${ticket}`);
    });

    it('a change whose tests stay red ends Failed with the wip commit after one repair round, and the next run resumes from it', async () => {
      const ticket = tracker.ticketId(32);
      const title = 'Say goodbye instead';
      tracker.addTicket(ticket, title, 'Make greeting.txt say bye.');
      model.script({
        match: title,
        turns: [
          { toolCalls: [{ name: 'write_file', input: { path: 'greeting.txt', content: 'bye\n' } }] },
          { toolCalls: [{ name: 'finish', input: { summary: 'Says bye now.' } }] },
          // The repair round: told the failing output, the model still gets it wrong.
          { toolCalls: [{ name: 'write_file', input: { path: 'greeting.txt', content: 'bye bye\n' } }] },
          { toolCalls: [{ name: 'finish', input: { summary: 'Still bye.' } }] },
        ],
      });
      const failed = await run(ticket);
      expect(failed.state).toBe('failed');
      expect(failed.error).toContain('still red after the repair round');
      expect(failed.error).toContain('sh test.sh');
      expect(failed.error).not.toContain('\n'); // the failure comment says why in one line
      const branch = branchOf(ticket);
      expect(show(host.bare, branch, '%s')).toBe(`[wip] code run ${failed.runId}`);
      expect(fileAt(host.bare, branch, 'greeting.txt')).toBe('bye bye\n');
      expect(prsOf(branch)).toEqual([]);
      // The repair round's request carried the failing test's output.
      const repair = model.modelCalls().filter((r) => r.body.includes(title))[2]!;
      expect(repair.text).toContain('greeting.txt must say hello, it says: bye');
      // The failure comment says why in one line.
      const comment = await eventually(() => tracker.comments(ticket).find((c) => c.includes(failed.runId)), 15_000, 'the failure comment');
      expect(comment).toContain('still red after the repair round');

      // The next run starts from the wip commit: the model sees its earlier work.
      const again = 'RESUME-7c1';
      model.script({
        match: again,
        turns: [
          { toolCalls: [{ name: 'bash', input: { command: 'cat greeting.txt' } }] },
          { toolCalls: [{ name: 'write_file', input: { path: 'greeting.txt', content: 'hello\n' } }] },
          { toolCalls: [{ name: 'finish', input: { summary: 'Back to hello, as the tests want.' } }] },
        ],
      });
      tracker.addComment(ticket, again);
      const wip = branchTip(host.bare, branch);
      const next = await run(ticket);
      expect({ state: next.state, error: next.error }).toEqual({ state: 'succeeded', error: null });
      const resumed = model.modelCalls().filter((r) => r.body.includes(again));
      expect(resumed[0]!.text).toContain('This ticket was worked on before');
      expect(resumed[1]!.text).toContain('bye bye');
      expect(show(host.bare, branch, '%P')).toBe(wip);
      expect(fileAt(host.bare, branch, 'greeting.txt')).toBe('hello\n');
      expect(prsOf(branch)).toHaveLength(1);
    });
  });
}
