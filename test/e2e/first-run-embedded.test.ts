import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBareRepository } from '../stand-ins/git-repositories.js';
import { GitHubStandIn } from '../stand-ins/github-stand-in.js';
import { OtlpReceiver } from '../stand-ins/otlp-receiver.js';
import { eventually } from '../support/eventually.js';
import { redisServerMissing } from '../support/redis-server.js';
import type { HealthBody } from '../support/response-bodies.js';
import { type ServerProcess, getJson, isAlive, runCli, startServer } from '../support/server-process.js';
import { type TempConfig, tempConfig } from '../support/temp-config.js';
import { githubLabeled, githubWire } from '../webhooks/support/deliveries.js';
import { SECRETS } from '../webhooks/support/webhook-harness.js';

/**
 * The first run of a new user: the built server as `npm run serve` starts it (migrate, then
 * `npm start` with KVSTORE_URL=embedded; the build is the suite's own), with no DATABASE_URL and
 * no store of its own, and a signed GitHub delivery for a command pipeline ends `service:done`.
 * Then the store child is killed while a run is in flight: it is restarted, and the run ends.
 * Traces go to a local OTLP receiver: one trace from the delivery through the claim to the run.
 */
const GH_TOKEN = 'ghp_firstRunEmbeddedToken00001';

interface RunPage { items: { id: string; state: string; ticket: string }[] }

describe.skipIf(redisServerMissing !== null)(`a first run on the embedded defaults${redisServerMissing ? ` (skipped: ${redisServerMissing})` : ''}`, () => {
  let github: GitHubStandIn;
  let repositories: string;
  let config: TempConfig;
  let server: ServerProcess;
  let otlp: OtlpReceiver;

  beforeAll(async () => {
    github = await new GitHubStandIn(GH_TOKEN, 'acme', 'shop-web').start();
    github.addIssue(101, ['bug']);
    github.addIssue(102, ['slow']);
    repositories = mkdtempSync(join(tmpdir(), 'first-run-git-'));
    createBareRepository(join(repositories, 'shop-web.git'), { defaultBranch: 'main' });
    github.mountGit('/acme/shop-web', { repository: join(repositories, 'shop-web.git'), credential: { username: 'x-access-token', password: GH_TOKEN } });
    config = tempConfig('first-run', {
      pipelines: { quick: { commands: ['true'], timeout_seconds: 60 }, slow: { commands: ['sleep 6'], timeout_seconds: 120 } },
      sandbox: { backend: 'in-process', cpu: 1, memory: '1Gi' },
      capacity: { cpu: 8, memory: '16Gi' },
      secrets: { GH_TOKEN },
      projects: {
        shop: {
          tracker: 'platform-a',
          repos: [{ name: 'shop-web', platform: 'platform-a', url: `${github.url}/acme/shop-web`, api_url: github.apiUrl, auth_secret: '${GH_TOKEN}' }],
          platform_a_trigger: { pipeline_from_label: { bug: 'quick', slow: 'slow' } },
        },
      },
    });
    otlp = await new OtlpReceiver().start();
    const vars = { SERVICE_CONFIG: config.path, SERVICE_DATA_DIR: config.dir, KVSTORE_URL: 'embedded', PLATFORM_A_WEBHOOK_SECRET: SECRETS.platformA };
    const tracing = { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, OTEL_BSP_SCHEDULE_DELAY: '200' };
    const migrated = await runCli(['migrate'], vars, 120_000);
    expect(migrated.code, migrated.stderr).toBe(0);
    server = await startServer({ ...vars, ...tracing }, { timeoutMs: 30_000 });
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    await otlp?.stop();
    await github?.stop();
    if (repositories) rmSync(repositories, { recursive: true, force: true });
    config?.remove();
  });

  async function deliver(ticket: number, label: string): Promise<void> {
    const wire = githubWire('issues', githubLabeled(ticket, { repoUrl: `${github.url}/acme/shop-web`, label }));
    const response = await fetch(`${server.baseUrl}${wire.url}`, { method: 'POST', headers: wire.headers, body: wire.payload });
    expect(response.status, await response.text()).toBe(202);
  }

  async function storeState(): Promise<{ state: string; reason: string }> {
    const { body } = await getJson<HealthBody>(`${server.baseUrl}/health`);
    return body.subsystems.find((s) => s.name === 'redis')!;
  }

  it('takes a signed delivery through a command pipeline to service:done', async () => {
    await eventually(async () => ((await storeState()).state === 'up' ? true : undefined), 20_000, 'the embedded store up');
    // The embedded database opens after the listener: the first claim waits for it as a user would.
    await eventually(async () => ((await getJson(`${server.baseUrl}/api/runs`)).status === 200 ? true : undefined), 60_000, 'the database ready');
    await deliver(101, 'bug');
    await eventually(async () => (github.issues.get(101)?.labels.includes('service:done') ? true : undefined), 60_000, 'the done label');
    const { body } = await getJson<RunPage>(`${server.baseUrl}/api/runs?ticket=101`);
    expect(body.items.map((r) => r.state)).toEqual(['succeeded']);
  });

  it('exports one trace from the delivery through the claim to the run and its steps, with no secret or ticket text in it', async () => {
    const run = await eventually(async () => {
      const found = otlp.spans.find((s) => s.name === 'run quick');
      return found && otlp.spans.some((s) => s.name.startsWith('step ') && s.traceId === found.traceId) ? found : undefined;
    }, 20_000, 'the run span exported');
    const trace = otlp.spans.filter((s) => s.traceId === run.traceId);
    const byId = new Map(trace.map((s) => [s.spanId, s]));
    const delivery = trace.find((s) => s.name === 'webhook.delivery')!;
    const claim = trace.find((s) => s.name === 'ticket.claim')!;
    expect(delivery.parentSpanId ?? '').toBe('');
    expect(delivery.attributes).toMatchObject({ 'pipeline_service.platform': 'platform-a', 'pipeline_service.project': 'shop', 'pipeline_service.ticket': '101', 'http.response.status_code': 202 });
    expect(claim.parentSpanId).toBe(delivery.spanId);
    expect(claim.attributes).toMatchObject({ 'pipeline_service.claim.outcome': 'Claimed', 'pipeline_service.pipeline': 'quick' });
    expect(run.parentSpanId).toBe(claim.spanId);
    expect(run.attributes['pipeline_service.run_id']).toBe(claim.attributes['pipeline_service.run_id']);
    const steps = trace.filter((s) => s.name.startsWith('step '));
    expect(steps.length).toBeGreaterThan(0);
    for (const step of steps) expect(byId.get(step.parentSpanId!)?.name).toBe('run quick');
    const title = String((githubLabeled(101)['issue'] as { title: string }).title);
    const everything = JSON.stringify(otlp.spans);
    expect(everything).not.toContain(GH_TOKEN);
    expect(everything).not.toContain(SECRETS.platformA);
    expect(everything).not.toContain(title);
  });

  it('restarts the store child killed under a running run, and the run still ends', async () => {
    await deliver(102, 'slow');
    await eventually(async () => {
      const { body } = await getJson<RunPage>(`${server.baseUrl}/api/runs?ticket=102`);
      return body.items[0]?.state === 'running' ? true : undefined;
    }, 30_000, 'the slow run running');
    const before = await storeState();
    const pid = Number(/pid (\d+)/.exec(before.reason)?.[1]);
    expect(pid).toBeGreaterThan(1);
    process.kill(pid, 'SIGKILL');
    const after = await eventually(async () => {
      const state = await storeState();
      return state.state === 'up' && state.reason.includes('restarted 1 time') ? state : undefined;
    }, 30_000, 'the store restarted and up');
    expect(isAlive(pid)).toBe(false);
    expect(after.reason).not.toContain(`pid ${pid})`);
    const ended = await eventually(async () => {
      const { body } = await getJson<RunPage>(`${server.baseUrl}/api/runs?ticket=102`);
      return body.items.find((r) => ['succeeded', 'failed', 'cancelled'].includes(r.state));
    }, 90_000, 'the slow run to end');
    expect(ended.state).toBe('succeeded');
    await eventually(async () => (github.issues.get(102)?.labels.includes('service:done') ? true : undefined), 30_000, 'the done label');
  });
});
