import type { HrTime } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import { CONTEXT_FILES } from '../agent/support/code-scenarios.js';
import { commitFiles } from '../stand-ins/git-repositories.js';
import type { GitHubStandIn } from '../stand-ins/github-stand-in.js';
import { ModelStandIn } from '../stand-ins/model-stand-in.js';
import { eventually } from '../support/eventually.js';
import { githubLabeled, githubWire } from '../webhooks/support/deliveries.js';
import { SECRETS, sendWire } from '../webhooks/support/webhook-harness.js';
import { type CodeHost, startCodeHost } from '../workspaces/support/code-hosts.js';
import { GIT_IDENTITY } from '../workspaces/support/publish-config.js';
import { PublishServer } from '../workspaces/support/publish-server.js';
import { type InMemoryTracing, startInMemoryTracing } from './support/in-memory-tracing.js';

/**
 * The trace of a real `code` run: a signed GitHub delivery into the whole server (in-process
 * sandboxes), the ticket and repository on the GitHub stand-in, the model stand-in replaying a
 * scripted conversation over the OpenAI Responses wire format. The spans go to an in-memory
 * exporter registered as the global provider, as start-tracing.ts registers the OTLP one.
 */
const MODEL = 'gpt-5.1';
const TICKET = '41';
const TITLE = 'Greet the visitors warmly TITLE-MARKER-5e1';
const BODY = 'Add greeting.txt saying hello. DESCRIPTION-MARKER-8b3.';
const NARRATION = 'Reading the test first. NARRATION-MARKER-2c9.';
const COMMAND = 'sh test.sh && echo TESTS-GREEN-MARKER-4f0';
const SUMMARY = 'Added greeting.txt, which says hello. SUMMARY-MARKER-6d7.';
// Distinct per call, so each chat span's figures can only have come from its own answer.
const USAGES = [{ inputTokens: 1201, outputTokens: 31 }, { inputTokens: 1302, outputTokens: 42 }, { inputTokens: 1403, outputTokens: 53 }, { inputTokens: 1504, outputTokens: 64 }];

const hex = (n: number) => randomBytes(n).toString('hex');
const idOf = (s: ReadableSpan) => s.spanContext().spanId;
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId ?? null;
const before = (a: HrTime, b: HrTime) => a[0] - b[0] || a[1] - b[1];
const inOrder = (spans: ReadableSpan[]) => [...spans].sort((a, b) => before(a.startTime, b.startTime));

describe('the trace of a code run: delivery, claim, run, agent step, model calls and tool calls', () => {
  const ghToken = `ghp_trace${hex(12)}`;
  const apiKey = `sk-model-${hex(12)}`;
  let tracing: InMemoryTracing;
  let root: string;
  let host: CodeHost;
  let model: ModelStandIn;
  let server: PublishServer;

  beforeAll(async () => {
    tracing = startInMemoryTracing();
    root = mkdtempSync(join(tmpdir(), 'trace-code-'));
    host = await startCodeHost(Platform.GitHub, root, ghToken, 'greeter');
    commitFiles(host.bare, 'main', CONTEXT_FILES, 'Add the contexts');
    model = await ModelStandIn.start({ apiKey });
    server = await PublishServer.boot({
      git: GIT_IDENTITY,
      sandbox: { backend: 'in-process', cpu: 1, memory: '1Gi', allow_agents_in_process: true },
      // Every credential through `secrets:`, so "no configured secret in a span" covers them all.
      secrets: { GH_TOKEN: ghToken, MODEL_KEY: apiKey, HOOK_SECRET: SECRETS.platformA },
      webhooks: { platform_a_secret: '${HOOK_SECRET}' },
      agent: { provider: 'openai', model: MODEL, base_url: model.baseUrl, api_key: '${MODEL_KEY}', max_steps: 20, step_timeout_seconds: 120, requests_per_minute: 6000 },
      projects: { app: { ...host.trackerConfig('done', 'code'), repos: [host.repoEntry({ auth_secret: '${GH_TOKEN}' })] } },
    });
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await model?.close();
    await host?.stop();
    await tracing?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('exports one trace whose chat and execute_tool spans sit under the agent step, with the model figures and no text or secret', async () => {
    (host.standIn as GitHubStandIn).addIssue(Number(TICKET), ['ready-for-agent'], { title: TITLE, body: BODY });
    model.script({
      match: 'TITLE-MARKER-5e1',
      turns: [
        { toolCalls: [{ name: 'read_file', input: { path: 'test.sh' } }], text: NARRATION, usage: USAGES[0] },
        { toolCalls: [{ name: 'write_file', input: { path: 'greeting.txt', content: 'hello\n' } }], usage: USAGES[1] },
        { toolCalls: [{ name: 'bash', input: { command: COMMAND } }], usage: USAGES[2] },
        { toolCalls: [{ name: 'finish', input: { summary: SUMMARY } }], usage: USAGES[3] },
      ],
    });
    const payload = githubLabeled(Number(TICKET), { repoUrl: host.repoEntry()['url'] as string, label: 'ready-for-agent' });
    const reply = await sendWire(server.app, githubWire('issues', payload));
    expect(reply.status, reply.body).toBe(202);

    const claim = await eventually(() => tracing.spans().find((s) => s.name === 'ticket.claim'), 15_000, 'the claim span');
    const runId = String(claim.attributes['pipeline_service.run_id']);
    expect(await server.finished(runId, 120_000)).toEqual({ state: 'succeeded', error: null });
    const run = await eventually(() => tracing.spans().find((s) => s.name === 'run code'), 15_000, 'the run span ended');

    // One trace: delivery → claim → run (across the job queue) → step agent → chat / execute_tool.
    const traceId = claim.spanContext().traceId;
    const spans = tracing.spans().filter((s) => s.spanContext().traceId === traceId);
    const delivery = spans.find((s) => s.name === 'webhook.delivery')!;
    expect(delivery).toBeDefined();
    expect(parentOf(delivery)).toBeNull();
    expect(parentOf(claim)).toBe(idOf(delivery));
    expect(run.spanContext().traceId).toBe(traceId);
    expect(parentOf(run)).toBe(idOf(claim));
    expect(run.attributes['pipeline_service.run_id']).toBe(runId);
    const agent = spans.filter((s) => s.name === 'step agent');
    expect(agent).toHaveLength(1);
    expect(parentOf(agent[0]!)).toBe(idOf(run));

    const chats = inOrder(spans.filter((s) => s.name.startsWith('chat ')));
    expect(chats.map((s) => s.name)).toEqual(Array(4).fill(`chat ${MODEL}`));
    for (const chat of chats) expect(parentOf(chat)).toBe(idOf(agent[0]!));
    expect(chats.map((s) => s.attributes)).toEqual(USAGES.map((u) => expect.objectContaining({
      'gen_ai.operation.name': 'chat',
      'gen_ai.system': 'openai',
      'gen_ai.request.model': MODEL,
      'gen_ai.usage.input_tokens': u.inputTokens,
      'gen_ai.usage.output_tokens': u.outputTokens,
      'gen_ai.response.finish_reasons': ['tool-calls'],
    })));

    const tools = inOrder(spans.filter((s) => s.name.startsWith('execute_tool ')));
    expect(tools.map((s) => s.name)).toEqual(['execute_tool read_file', 'execute_tool write_file', 'execute_tool bash', 'execute_tool finish']);
    for (const tool of tools) expect(parentOf(tool)).toBe(idOf(agent[0]!));
    for (const tool of tools) expect(tool.attributes['gen_ai.tool.name']).toBe(tool.name.slice('execute_tool '.length));
    // Each tool span names the call the model made: the ids the stand-in issued and then saw
    // answered (`finish` ends the step, so its result is never sent back; its id is just its own).
    const callIds = tools.map((s) => s.attributes['gen_ai.tool.call.id']);
    const answered = model.modelCalls().flatMap((r) => r.messages).filter((m) => m.role === 'tool').map((m) => m.toolCallId);
    expect([...new Set(answered)]).toEqual(callIds.slice(0, 3));
    expect(new Set(callIds).size).toBe(4);
    expect(callIds[3]).toMatch(/^call_\w+$/);
    expect(tools.find((s) => s.name === 'execute_tool bash')!.attributes).toMatchObject({ 'pipeline_service.tool.ok': true, 'pipeline_service.tool.exit_code': 0 });

    // The texts below really went through the run (so their absence from the spans means something)…
    const prompts = model.modelCalls().map((r) => r.text).join('\n');
    const webhookIssue = payload['issue'] as { title: string; body: string };
    for (const said of [TITLE, 'DESCRIPTION-MARKER-8b3', 'PRINCIPLE-MARKER-7f3', NARRATION, 'TESTS-GREEN-MARKER-4f0']) expect(prompts).toContain(said);
    // …and no span of any trace carries them, the webhook's own issue text, or a secret.
    const exported = JSON.stringify(tracing.spans().map((s) => ({ name: s.name, attributes: s.attributes, status: s.status, events: s.events, links: s.links })));
    for (const forbidden of [
      'TITLE-MARKER-5e1', 'DESCRIPTION-MARKER-8b3', 'PRINCIPLE-MARKER-7f3', 'NARRATION-MARKER-2c9', 'TESTS-GREEN-MARKER-4f0', 'SUMMARY-MARKER-6d7',
      'no earlier work on this ticket exists', webhookIssue.title, ghToken, apiKey, SECRETS.platformA,
    ]) expect(exported).not.toContain(forbidden);
  }, 150_000);
});
