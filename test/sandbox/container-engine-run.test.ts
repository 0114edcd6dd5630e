import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import { SandboxLabel } from '../../src/sandbox/sandbox-backend.js';
import { fileAt } from '../stand-ins/git-repositories.js';
import { BUSYBOX_IMAGE, ensureBusyboxImage } from '../support/busybox-image.js';
import { TEST_IMAGE, ensureDockerEngine, ensureSandboxImage } from '../support/sandbox-image.js';
import { type CodeHost, DONE_STATUS, startCodeHost } from '../workspaces/support/code-hosts.js';
import { GIT_IDENTITY } from '../workspaces/support/publish-config.js';
import { PublishServer } from '../workspaces/support/publish-server.js';

// A machine without a container engine reports these tests skipped, with the reason, never passed.
const unavailable = await ensureDockerEngine();
if (unavailable) console.warn(`container-engine run tests skipped: ${unavailable}`);

const MEMORY = 512 * 1024 ** 2;
/** Each command's evidence on a line of its own, tagged, so the run's events can be searched for it. */
const PROBES = [
  'echo "host=$(hostname)"',
  'echo "uid=$(id -u)"',
  'echo "memory=$(cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null || cat /sys/fs/cgroup/memory.max)"',
  'echo "net=$(ls /sys/class/net | tr "\\n" " ")"',
  'echo "envnames=$(env | cut -d= -f1 | sort | tr "\\n" " ")"',
  'echo "readme=$(cat README.md)"',
];

describe.skipIf(unavailable)(`a command pipeline in container-engine sandboxes, through the whole server${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  const docker = new Docker();
  const token = `e2e-engine-token-${randomBytes(10).toString('hex')}`;
  let root: string;
  let host: CodeHost;
  let server: PublishServer;

  beforeAll(async () => {
    await ensureSandboxImage(docker);
    root = mkdtempSync(join(tmpdir(), 'engine-e2e-'));
    host = await startCodeHost(Platform.GitHub, root, token, 'shop-web');
    host.addTicket('21', 'Greet from a container');
    host.addTicket('22', 'Overrun');
    server = await PublishServer.boot({
      git: GIT_IDENTITY,
      sandbox: { backend: 'container-engine', image: TEST_IMAGE, cpu: 1, memory: '512Mi', network: 'none' },
      pipelines: {
        inside: { commands: [...PROBES, "printf 'hello from a container\\n' > greeting.txt"], timeout_seconds: 60, publish: 'pull-request' },
        overrun: { commands: ['sleep 300 & sleep 301'], timeout_seconds: 2, publish: 'none' },
      },
      projects: { shop: { ...host.trackerConfig(DONE_STATUS[Platform.GitHub], 'inside'), repos: [host.repoEntry()] } },
    });
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await host?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const containersOf = (runId: string) => docker.listContainers({ all: true, filters: { label: [`${SandboxLabel.RunId}=${runId}`] } });

  it('runs every command inside a locked-down container, receives the tree, and publishes the change', async () => {
    const { runId, state, error } = await server.run(Platform.GitHub, 'shop', '21', 'inside');
    const texts = (await server.events(runId)).map((e) => e.text);
    expect({ state, error }, texts.join('\n')).toEqual({ state: 'succeeded', error: null });
    const said = (key: string) => texts.flatMap((t) => t.split('\n')).find((l) => l.startsWith(`${key}=`))?.slice(key.length + 1).trim();
    expect(said('host')).toBeTruthy();
    expect(said('host')).not.toBe(hostname());
    expect(said('uid')).toBe('1000');
    expect(Number(said('memory'))).toBe(MEMORY);
    expect(said('net')).toBe('lo');
    // The commands see PATH, HOME, LANG and the run's SERVICE_* variables: no credential, nothing of the server's.
    const names = said('envnames')!.split(' ').filter((n) => !['PWD', 'SHLVL', '_', 'OLDPWD'].includes(n));
    expect(names.every((n) => ['HOME', 'LANG', 'PATH'].includes(n) || n.startsWith('SERVICE_')), names.join(' ')).toBe(true);
    expect(texts.join('\n')).not.toContain(token);
    expect(said('readme')).toBe('# shop-web');
    // Publishing works from the tree the container gave back.
    expect(fileAt(host.bare, 'service/21', 'greeting.txt')).toBe('hello from a container\n');
    expect(host.pullRequests().filter((pr) => pr.head === 'service/21')).toHaveLength(1);
    expect(await containersOf(runId)).toEqual([]);
  });

  it('kills a command that overruns the pipeline timeout and removes the container', async () => {
    const started = Date.now();
    const { runId, state, error } = await server.run(Platform.GitHub, 'shop', '22', 'overrun');
    expect(state).toBe('failed');
    expect(error).toMatch(/tim/i);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(await containersOf(runId)).toEqual([]);
  });
});

describe.skipIf(unavailable)(`a command pipeline on a busybox image (ash, busybox setsid), through the whole server${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  const docker = new Docker();
  const token = `e2e-busybox-token-${randomBytes(10).toString('hex')}`;
  let root: string;
  let host: CodeHost;
  let server: PublishServer;

  beforeAll(async () => {
    await ensureBusyboxImage(docker);
    root = mkdtempSync(join(tmpdir(), 'busybox-e2e-'));
    host = await startCodeHost(Platform.GitHub, root, token, 'shop-web');
    host.addTicket('31', 'Greet from busybox');
    server = await PublishServer.boot({
      git: GIT_IDENTITY,
      sandbox: { backend: 'container-engine', image: BUSYBOX_IMAGE, cpu: 1, memory: '256Mi', network: 'none' },
      pipelines: {
        inside: {
          commands: ['sleep 1', 'true', 'echo "uid=$(id -u) readme=$(cat README.md)"', "printf 'hello from busybox\\n' > greeting.txt"],
          timeout_seconds: 60, publish: 'pull-request',
        },
      },
      projects: { shop: { ...host.trackerConfig(DONE_STATUS[Platform.GitHub], 'inside'), repos: [host.repoEntry()] } },
    });
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await host?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('runs every step (sleep, true, output) and publishes the change', async () => {
    const { runId, state, error } = await server.run(Platform.GitHub, 'shop', '31', 'inside');
    const texts = (await server.events(runId)).map((e) => e.text);
    expect({ state, error }, texts.join('\n')).toEqual({ state: 'succeeded', error: null });
    expect(texts.flatMap((t) => t.split('\n')).map((l) => l.trim())).toContain('uid=1000 readme=# shop-web');
    expect(fileAt(host.bare, 'service/31', 'greeting.txt')).toBe('hello from busybox\n');
    expect(host.pullRequests().filter((pr) => pr.head === 'service/31')).toHaveLength(1);
    expect(await docker.listContainers({ all: true, filters: { label: [`${SandboxLabel.RunId}=${runId}`] } })).toEqual([]);
  });
});
