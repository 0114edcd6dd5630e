import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import { commitFiles, fileAt } from '../stand-ins/git-repositories.js';
import { eventually } from '../support/eventually.js';
import { KubernetesStandIn } from '../stand-ins/kubernetes-stand-in.js';
import { dockerEngine } from '../stand-ins/kubernetes/docker-engine.js';
import { ensureKubernetesTestImage } from '../stand-ins/kubernetes/test-image.js';
import { ModelStandIn } from '../stand-ins/model-stand-in.js';
import { CONTEXT_FILES } from '../agent/support/code-scenarios.js';
import { type CodeHost, DONE_STATUS, startCodeHost } from '../workspaces/support/code-hosts.js';
import { GIT_IDENTITY } from '../workspaces/support/publish-config.js';
import { PublishServer } from '../workspaces/support/publish-server.js';

// A machine without a container engine reports these tests skipped, with the reason, never passed.
const engine = await dockerEngine();
const NAMESPACE = 'runs';

describe.skipIf(!engine.ok)(`pipelines in container-orchestrator sandboxes, through the whole server${engine.ok ? '' : ` (skipped: ${engine.reason})`}`, () => {
  const token = `e2e-k8s-${randomBytes(10).toString('hex')}`;
  const apiKey = `sk-k8s-${randomBytes(10).toString('hex')}`;
  let root: string;
  let host: CodeHost;
  let cluster: KubernetesStandIn;
  let model: ModelStandIn;
  let server: PublishServer;

  beforeAll(async () => {
    const image = ensureKubernetesTestImage();
    root = mkdtempSync(join(tmpdir(), 'k8s-e2e-'));
    cluster = await new KubernetesStandIn({ namespaces: [NAMESPACE] }).start();
    host = await startCodeHost(Platform.GitHub, root, token, 'podded');
    commitFiles(host.bare, 'main', CONTEXT_FILES, 'Add the contexts');
    host.addTicket('71', 'Report from a pod', 'Anything.');
    host.addTicket('72', 'Greet from a pod', 'Write greeting.txt saying hello.');
    host.addTicket('73', 'Hang in a pod', 'Anything.');
    host.addTicket('74', 'Report from an image nobody has', 'Anything.');
    model = await ModelStandIn.start({ apiKey });
    server = await PublishServer.boot({
      git: GIT_IDENTITY,
      sandbox: {
        backend: 'container-orchestrator', image, cpu: 0.5, memory: '256Mi', network: 'none',
        orchestrator: { namespace: NAMESPACE, kubeconfig: cluster.writeKubeconfig(root) },
      },
      agent: { provider: 'anthropic', model: 'claude-sonnet-4-5', base_url: model.baseUrl, api_key: apiKey, requests_per_minute: 6000 },
      pipelines: {
        report: {
          commands: ['echo "host=$(hostname) uid=$(id -u) net=$(ls /sys/class/net | tr "\\n" " ")sa=$(ls /var/run/secrets 2>&1 | head -1)"', 'cat README.md'],
          timeout_seconds: 120,
        },
        // Overruns its bound: the run's timeout kills the command in the pod.
        hang: { commands: ['echo started; sleep 60; echo never'], timeout_seconds: 3 },
      },
      projects: { podded: { ...host.trackerConfig(DONE_STATUS[Platform.GitHub], 'code'), repos: [host.repoEntry()] } },
    });
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await model?.close();
    await cluster?.stop();
    await host?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('a command pipeline runs in a pod: its own hostname, non-root, no network, no service-account token; the pod is deleted', async () => {
    const { runId, state, error } = await server.run(Platform.GitHub, 'podded', '71', 'report', 90_000);
    const texts = (await server.events(runId)).map((e) => e.text);
    expect({ state, error }, texts.join('\n')).toEqual({ state: 'succeeded', error: null });
    const line = texts.find((t) => t.startsWith('host='))!;
    const [, podHost, uid, net, sa] = /host=(\S+) uid=(\d+) net=(.*?)sa=(.*)/.exec(line) ?? [];
    expect(podHost).toBeTruthy();
    expect(podHost).not.toBe(hostname());
    expect(uid).toBe('1000');
    expect(net?.trim()).toBe('lo');
    expect(sa).toContain('No such file');
    expect(texts).toContain('# podded');
    // Deleted with the run's end (the stand-in removes a deleted pod's container, then the pod).
    await eventually(() => (cluster.pods.list(NAMESPACE).some((p) => JSON.stringify(p).includes(runId)) ? undefined : true), 15_000, 'the pod to be deleted');
  });

  it('the code pipeline runs in a pod and opens the pull request', async () => {
    model.script({
      match: 'Greet from a pod',
      turns: [
        { toolCalls: [{ name: 'write_file', input: { path: 'greeting.txt', content: 'hello\n' } }] },
        { toolCalls: [{ name: 'bash', input: { command: 'sh test.sh && echo "green in $(hostname)"' } }] },
        { toolCalls: [{ name: 'finish', input: { summary: 'Greets from a pod.' } }] },
      ],
    });
    const { state, error } = await server.run(Platform.GitHub, 'podded', '72', 'code', 90_000);
    expect({ state, error }).toEqual({ state: 'succeeded', error: null });
    const green = model.modelCalls().filter((r) => r.body.includes('Greet from a pod'))[2]!.text;
    expect(green).toMatch(/green in \S+/);
    expect(green).not.toContain(`green in ${hostname()}`);
    expect(fileAt(host.bare, 'service/72', 'greeting.txt')).toBe('hello\n');
    expect(host.pullRequests().filter((pr) => pr.head === 'service/72')).toHaveLength(1);
  });

  it('a command that overruns the pipeline timeout is killed, the run fails and the pod is deleted', async () => {
    const started = Date.now();
    const { runId, state, error } = await server.run(Platform.GitHub, 'podded', '73', 'hang', 90_000);
    expect(state).toBe('failed');
    expect(error).toMatch(/timed out|timeout/i);
    expect(Date.now() - started).toBeLessThan(45_000);
    const texts = (await server.events(runId)).map((e) => e.text);
    expect(texts).toContain('started');
    expect(texts).not.toContain('never');
    await eventually(() => (cluster.pods.list(NAMESPACE).some((p) => JSON.stringify(p).includes(runId)) ? undefined : true), 15_000, 'the pod to be deleted');
  });

  it("a context naming an image that cannot be pulled fails the run naming the image, and leaves no pod", async () => {
    // The ticket's work branch carries a context whose toolchain image no registry has.
    commitFiles(host.bare, 'service/74', {
      '.service/contexts/default/context.yaml': 'name: default\npath: .\nimage: registry.invalid/nobody/toolchain:1\ntest:\n  - sh test.sh\n',
    }, 'Name an image', 'main');
    const { runId, state, error } = await server.run(Platform.GitHub, 'podded', '74', 'report', 90_000);
    expect(state).toBe('failed');
    expect(error).toContain('registry.invalid/nobody/toolchain:1');
    expect(cluster.pods.list(NAMESPACE).some((p) => JSON.stringify(p).includes(runId))).toBe(false);
  });
});
