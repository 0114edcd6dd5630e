import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX, type SandboxConfig } from '../../src/config/service-config.js';
import { ContainerEngineBackend } from '../../src/sandbox/container-engine/container-engine.backend.js';
import type { ContainerEngineSandbox } from '../../src/sandbox/container-engine/container-engine.sandbox.js';
import { type OutputStream, type Sandbox, SandboxLabel } from '../../src/sandbox/sandbox-backend.js';
import { TEST_IMAGE, ensureDockerEngine, ensureSandboxImage } from '../support/sandbox-image.js';
import { readTar, tarOf } from '../support/tar-archives.js';

// A machine without a container engine reports these tests skipped, with the reason, never passed.
const unavailable = await ensureDockerEngine();
if (unavailable) console.warn(`container-engine tests skipped: ${unavailable}`);

const docker = new Docker();
const MEMORY = 256 * 1024 ** 2;
const config: SandboxConfig = { ...DEFAULT_SANDBOX, backend: 'container-engine', image: TEST_IMAGE, cpu: 0.5, memory: MEMORY, pids_limit: 128 };
const backend = new ContainerEngineBackend(config, { instanceId: 'test-instance' });
const created: Sandbox[] = [];

async function sandbox(env: Record<string, string> = {}, runId = randomUUID()): Promise<ContainerEngineSandbox> {
  const made = await backend.create({ runId, name: 'web', env });
  created.push(made);
  return made as ContainerEngineSandbox;
}

/** Runs a command that must succeed; answers its stdout lines. */
async function run(box: Sandbox, command: string, env?: Record<string, string>): Promise<string[]> {
  const lines: { stream: OutputStream; line: string }[] = [];
  const result = await box.exec(command, { timeoutMs: 10_000, env, onLine: (stream, line) => lines.push({ stream, line }) });
  expect(result.exitCode, `${command}: ${JSON.stringify(lines)}`).toBe(0);
  return lines.filter((l) => l.stream === 'stdout').map((l) => l.line);
}

describe.skipIf(unavailable)(`container-engine backend${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  beforeAll(async () => {
    await ensureSandboxImage(docker);
  });

  afterAll(async () => {
    await Promise.all(created.map((s) => s.destroy()));
  });

  it('streams stdout and stderr lines as they arrive and reports the exit code', async () => {
    const box = await sandbox();
    const seen: { stream: OutputStream; line: string; at: number }[] = [];
    const started = Date.now();
    const result = await box.exec('echo one; echo warn >&2; sleep 0.6; printf "two"; exit 7', {
      timeoutMs: 10_000, onLine: (stream, line) => seen.push({ stream, line, at: Date.now() - started }),
    });
    expect(result).toEqual({ exitCode: 7, signal: null, timedOut: false });
    const stdout = seen.filter((l) => l.stream === 'stdout');
    expect(stdout.map((l) => l.line)).toEqual(['one', 'two']);
    expect(seen.filter((l) => l.stream === 'stderr').map((l) => l.line)).toEqual(['warn']);
    expect(stdout[1]!.at - stdout[0]!.at).toBeGreaterThan(400);
    expect(await run(box, 'pwd')).toEqual([box.workdir]);
  });

  it('gives commands only PATH, HOME, LANG and the run\'s variables (plus the command\'s own)', async () => {
    const box = await sandbox({ SERVICE_REPO: 'web' });
    const names = await run(box, 'env | cut -d= -f1 | sort', { EXTRA: '1' });
    expect(names.filter((n) => !['PWD', 'SHLVL', '_', 'OLDPWD'].includes(n))).toEqual(['EXTRA', 'HOME', 'LANG', 'PATH', 'SERVICE_REPO']);
    const [home] = await run(box, 'echo "$HOME"; touch "$HOME/.npmrc"');
    expect(home).not.toBe(box.workdir);
    expect((await readTar(await box.getArchive())).map((e) => e.name)).toEqual([]);
  });

  it('kills a command and its children when it overruns its timeout', async () => {
    const box = await sandbox();
    const started = Date.now();
    const result = await box.exec('sleep 301 & sleep 302', { timeoutMs: 500, onLine: () => undefined });
    expect(result).toEqual({ exitCode: null, signal: 'SIGKILL', timedOut: true });
    expect(Date.now() - started).toBeLessThan(5000);
    expect((await run(box, 'ps -eo args')).filter((a) => a.startsWith('sleep 30'))).toEqual([]);
  });

  it('kills a command and its children when its abort signal fires', async () => {
    const box = await sandbox();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const started = Date.now();
    const result = await box.exec('(sleep 303; echo late) & sleep 304', { timeoutMs: 60_000, onLine: () => undefined, signal: controller.signal });
    expect(result).toEqual({ exitCode: null, signal: 'SIGKILL', timedOut: false });
    expect(Date.now() - started).toBeLessThan(5000);
    expect((await run(box, 'ps -eo args')).filter((a) => a.startsWith('sleep 30'))).toEqual([]);
  });

  it('takes a tree in and gives it back (executable bits, links), files owned by the sandbox user', async () => {
    const box = await sandbox();
    await box.putArchive(tarOf([
      { name: 'bin/', type: 'directory' },
      { name: 'bin/greet.sh', content: '#!/bin/sh\necho "hello from $(basename "$0")"\n', mode: 0o755 },
      { name: 'src/lib/util.ts', content: 'export const answer = 42;\n', uid: 0, gid: 0 },
      { name: 'util-link', type: 'symlink', linkname: 'src/lib/util.ts' },
    ]));
    expect(await run(box, './bin/greet.sh; cat util-link')).toEqual(['hello from greet.sh', 'export const answer = 42;']);
    expect(await run(box, 'stat -c "%u:%g %a %n" bin bin/greet.sh src/lib/util.ts')).toEqual([
      '1000:1000 755 bin', '1000:1000 755 bin/greet.sh', '1000:1000 644 src/lib/util.ts',
    ]);
    await run(box, 'echo made > src/made.txt && chmod +x src/made.txt');
    const entries = await readTar(await box.getArchive());
    const byName = Object.fromEntries(entries.map(({ name, type, mode, content, linkname }) => [name, { type, mode, content, linkname }]));
    expect(Object.keys(byName).sort()).toEqual(['bin/', 'bin/greet.sh', 'src/', 'src/lib/', 'src/lib/util.ts', 'src/made.txt', 'util-link']);
    expect(byName['bin/greet.sh']).toMatchObject({ type: 'file', mode: 0o755 });
    expect(byName['src/made.txt']).toEqual({ type: 'file', mode: 0o755, content: 'made\n', linkname: null });
    expect(byName['util-link']).toMatchObject({ type: 'symlink', linkname: 'src/lib/util.ts' });
    // Collect reads the same tree as entries, straight from the engine's archive.
    const tree: string[] = [];
    for await (const entry of box.readTree()) tree.push(`${entry.name.replace(/\/$/, '')} ${entry.type} ${entry.mode.toString(8)} ${entry.content?.toString() ?? ''}${entry.linkname ?? ''}`);
    expect(tree).toEqual(entries.map(({ name, type, mode, content, linkname }) => `${name.replace(/\/$/, '')} ${type} ${mode?.toString(8)} ${content ?? ''}${linkname ?? ''}`));
  });

  it('refuses entries that would land outside the working directory', async () => {
    const box = await sandbox();
    await expect(box.putArchive(tarOf([{ name: '../x', content: 'x' }]))).rejects.toThrow('tar entry "../x" is refused');
    await expect(box.putArchive(tarOf([{ name: '/etc/x', content: 'x' }]))).rejects.toThrow('tar entry "/etc/x" is refused');
    await expect(box.putArchive(tarOf([{ name: 'evil', type: 'symlink', linkname: '/tmp' }, { name: 'evil/file', content: 'x' }])))
      .rejects.toThrow('tar entry "evil/file" is refused: evil is a symbolic link');
    expect(await run(box, 'ls /x /etc/x /tmp/file 2>/dev/null; true')).toEqual([]);
  });

  it('isolates commands: non-root, own hostname, the memory limit, no capabilities, no network', async () => {
    const box = await sandbox();
    expect(await run(box, 'id -u')).not.toEqual(['0']);
    expect(await run(box, 'hostname')).not.toEqual([hostname()]);
    const limit = await run(box, 'cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null || cat /sys/fs/cgroup/memory.max');
    expect(Number(limit[0])).toBe(MEMORY);
    expect(await run(box, 'grep -E "^(CapEff|NoNewPrivs)" /proc/self/status | tr -s "\\t " " "')).toEqual(['CapEff: 0000000000000000', 'NoNewPrivs: 1']);
    expect(await run(box, 'ls /sys/class/net')).toEqual(['lo']);
    expect(await run(box, 'env | grep -ciE "token|secret|password|key" || true')).toEqual(['0']);
  });

  it('labels its container, applies the configured limits, and destroy removes it (safe twice)', async () => {
    const runId = randomUUID();
    const box = await sandbox({}, runId);
    const info = await docker.getContainer(box.containerId).inspect();
    expect(info.Config.Labels).toMatchObject({ [SandboxLabel.RunId]: runId, [SandboxLabel.Sandbox]: 'web', [SandboxLabel.Instance]: 'test-instance' });
    expect(info.Name).toMatch(new RegExp(`^/pipeline-service-${runId.slice(0, 8)}-web-[0-9a-f]{8}$`));
    expect(info.HostConfig).toMatchObject({
      NanoCpus: 5e8, Memory: MEMORY, MemorySwap: MEMORY, PidsLimit: 128, CapDrop: ['ALL'], SecurityOpt: ['no-new-privileges'],
      NetworkMode: 'none', ReadonlyRootfs: false, Privileged: false,
    });
    expect(info.Mounts).toEqual([]);
    expect(info.Config.User).toBe('1000:1000');
    await box.destroy();
    await box.destroy();
    await expect(docker.getContainer(box.containerId).inspect()).rejects.toMatchObject({ statusCode: 404 });
    await expect(box.exec('true', { timeoutMs: 1000, onLine: () => undefined })).rejects.toThrow('is destroyed');
  });

  it('sweep removes the containers of runs no longer live and keeps the live ones', async () => {
    const live = await sandbox({}, randomUUID());
    const deadRun = randomUUID();
    const dead = await sandbox({}, deadRun);
    const removed = await backend.sweep((runId) => Promise.resolve(runId !== deadRun));
    expect(removed).toBe(1);
    await expect(docker.getContainer(dead.containerId).inspect()).rejects.toMatchObject({ statusCode: 404 });
    expect((await docker.getContainer(live.containerId).inspect()).State.Running).toBe(true);
  });

  it('a scoped sweep (a deployment\'s key prefix) removes only its own deployment\'s containers', async () => {
    const scope = `test-scope-${randomUUID().slice(0, 8)}`;
    const scoped = new ContainerEngineBackend(config, { scope });
    const mine = (await scoped.create({ runId: randomUUID(), name: 'web', env: {} })) as ContainerEngineSandbox;
    created.push(mine);
    const other = await sandbox();
    expect(await scoped.sweep(() => Promise.resolve(false))).toBe(1);
    await expect(docker.getContainer(mine.containerId).inspect()).rejects.toMatchObject({ statusCode: 404 });
    expect((await docker.getContainer(other.containerId).inspect()).State.Running).toBe(true);
  });

  it('fails create with the image\'s name when a missing image cannot be pulled', async () => {
    const image = `127.0.0.1:9/pipeline-service-missing-${randomUUID().slice(0, 8)}:latest`;
    await expect(backend.create({ runId: randomUUID(), name: 'web', env: {}, image })).rejects.toThrow(`cannot pull sandbox image ${image}`);
  });

  it('probe reports the engine version; an unreachable engine is ok:false naming DOCKER_HOST, never a throw', async () => {
    const probe = await backend.probe();
    expect(probe).toMatchObject({ ok: true });
    expect(probe.ok && probe.detail).toMatch(/\(API 1\.\d+\).*can create sandbox containers from pipeline-service-test:latest/);
    const missingImage = await new ContainerEngineBackend({ ...config, image: 'pipeline-service-absent:1' }).probe();
    expect(missingImage.ok && missingImage.detail).toMatch(/pipeline-service-absent:1 is not present and will be pulled on first use/);
    const unreachable = await new ContainerEngineBackend(config, { dockerHost: 'tcp://127.0.0.1:9' }).probe();
    expect(unreachable).toMatchObject({ ok: false, reason: expect.stringContaining('tcp://127.0.0.1:9 (DOCKER_HOST) is unreachable') });
    const configured = await new ContainerEngineBackend({ ...config, engine: { host: 'unix:///nonexistent/docker.sock' } }).probe();
    expect(configured).toMatchObject({ ok: false, reason: expect.stringContaining('(sandbox.engine.host) is unreachable') });
  });
});
