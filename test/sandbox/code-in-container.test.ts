import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import { SandboxLabel } from '../../src/sandbox/sandbox-backend.js';
import { commitFiles, fileAt } from '../stand-ins/git-repositories.js';
import { ModelStandIn } from '../stand-ins/model-stand-in.js';
import { TEST_IMAGE, ensureDockerEngine, ensureSandboxImage } from '../support/sandbox-image.js';
import { CONTEXT_FILES } from '../agent/support/code-scenarios.js';
import { type CodeHost, DONE_STATUS, startCodeHost } from '../workspaces/support/code-hosts.js';
import { GIT_IDENTITY } from '../workspaces/support/publish-config.js';
import { PublishServer } from '../workspaces/support/publish-server.js';

// A machine without a container engine reports these tests skipped, with the reason, never passed.
const unavailable = await ensureDockerEngine();
if (unavailable) console.warn(`code-in-container tests skipped: ${unavailable}`);

const MISSING_IMAGE = 'pipeline-service-missing-image:never';

describe.skipIf(unavailable)(`the code pipeline in container-engine sandboxes${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  const docker = new Docker();
  const token = `e2e-coder-${randomBytes(10).toString('hex')}`;
  const apiKey = `sk-coder-${randomBytes(10).toString('hex')}`;
  let root: string;
  let host: CodeHost;
  let odd: CodeHost;
  let model: ModelStandIn;
  let server: PublishServer;

  beforeAll(async () => {
    await ensureSandboxImage(docker);
    root = mkdtempSync(join(tmpdir(), 'code-container-'));
    host = await startCodeHost(Platform.GitHub, root, token, 'boxed');
    commitFiles(host.bare, 'main', CONTEXT_FILES, 'Add the contexts');
    // A repository whose context names an image nobody can pull here.
    odd = await startCodeHost(Platform.GitHub, root, token, 'odd');
    commitFiles(odd.bare, 'main', { ...CONTEXT_FILES, '.service/contexts/default/context.yaml': `name: default\npath: .\nimage: ${MISSING_IMAGE}\ntest: ['true']\n` }, 'Contexts');
    host.addTicket('61', 'Greet from the box', 'Write greeting.txt saying hello.');
    odd.addTicket('62', 'Never starts', 'Anything.');
    model = await ModelStandIn.start({ apiKey });
    server = await PublishServer.boot({
      git: GIT_IDENTITY,
      // No allow_agents_in_process: agent pipelines run in containers only.
      sandbox: { backend: 'container-engine', image: TEST_IMAGE, cpu: 1, memory: '512Mi', network: 'none' },
      agent: { provider: 'openai-compatible', model: 'local-coder', base_url: model.baseUrl, api_key: apiKey, requests_per_minute: 6000 },
      projects: {
        boxed: { ...host.trackerConfig(DONE_STATUS[Platform.GitHub], 'code'), repos: [host.repoEntry()] },
        odd: { ...odd.trackerConfig(DONE_STATUS[Platform.GitHub], 'code'), repos: [odd.repoEntry()] },
      },
    });
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await model?.close();
    await host?.stop();
    await odd?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('the model works inside the container (its tools, the verify step), and the change becomes a pull request', async () => {
    model.script({
      match: 'Greet from the box',
      turns: [
        { toolCalls: [{ name: 'bash', input: { command: 'echo "inside=$(hostname) uid=$(id -u) net=$(ls /sys/class/net | tr "\\n" " ")"' } }] },
        { toolCalls: [{ name: 'write_file', input: { path: 'greeting.txt', content: 'hello\n' } }] },
        { toolCalls: [{ name: 'edit_file', input: { path: 'greeting.txt', old_text: 'hello', new_text: 'hello' } }] },
        { toolCalls: [{ name: 'finish', input: { summary: 'Greets from a container.' } }] },
      ],
    });
    const { runId, state, error } = await server.run(Platform.GitHub, 'boxed', '61', 'code');
    expect({ state, error }).toEqual({ state: 'succeeded', error: null });
    const seen = model.modelCalls().filter((r) => r.body.includes('Greet from the box'))[1]!.text;
    const inside = /inside=(\S+) uid=(\d+) net=(.*)/.exec(seen);
    expect(inside?.[1]).toBeTruthy();
    expect(inside?.[1]).not.toBe(hostname());
    expect(inside?.[2]).toBe('1000');
    expect(inside?.[3]?.trim()).toBe('lo');
    expect(seen).not.toContain(token);
    expect(fileAt(host.bare, 'service/61', 'greeting.txt')).toBe('hello\n');
    expect(host.pullRequests().filter((pr) => pr.head === 'service/61')).toHaveLength(1);
    expect(await docker.listContainers({ all: true, filters: { label: [`${SandboxLabel.RunId}=${runId}`] } })).toEqual([]);
  });

  it('a context naming an image that cannot be pulled fails the run naming the image', async () => {
    const { state, error } = await server.run(Platform.GitHub, 'odd', '62', 'code', 60_000);
    expect(state).toBe('failed');
    expect(error).toContain(MISSING_IMAGE);
  });
});
