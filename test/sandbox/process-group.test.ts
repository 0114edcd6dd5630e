import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wrappedExec } from '../../src/sandbox/container-engine/exec-command.js';
import { KILL_SCRIPT, wrappedCommand } from '../../src/sandbox/container-orchestrator/exec-wrapper.js';
import { KILL_RECORDED } from '../../src/sandbox/process-group.js';
import { forEachOutputLine } from '../../src/sandbox/output-lines.js';
import { BUSYBOX_IMAGE, ensureBusyboxImage } from '../support/busybox-image.js';
import { LIVE_PROCESSES, running } from '../support/process-list.js';
import { NO_SETSID_TEST_IMAGE, TEST_IMAGE, ensureDockerEngine, ensureSandboxImage } from '../support/sandbox-image.js';

// A machine without a container engine reports these tests skipped, with the reason, never passed.
const unavailable = await ensureDockerEngine();
if (unavailable) console.warn(`process-group tests skipped: ${unavailable}`);

const docker = new Docker();

/**
 * Engines start every exec as a session leader, so the backends' tests never reach the wrappers'
 * other paths. Here each wrapper is started from a shell's background job, which leads no group:
 * with a setsid (util-linux's or busybox's, neither given -w) the wrapper must get a group of its
 * own and still pass the exit on; with none, the kill must still reach the command's whole tree.
 */
const IMAGES = [
  { kind: 'Debian (dash, util-linux setsid)', image: TEST_IMAGE, setsid: true },
  { kind: 'busybox (ash, busybox setsid)', image: BUSYBOX_IMAGE, setsid: true },
  { kind: 'Debian-style without any setsid', image: NO_SETSID_TEST_IMAGE, setsid: false },
] as const;
const WRAPPERS = [
  {
    backend: 'container-engine',
    wrap: (id: string, command: string) => wrappedExec(['HOSTNAME'], `/tmp/.pipeline-service-exec-${id}`, command),
    kill: (id: string) => ['/bin/sh', '-c', KILL_RECORDED, 'kill', `/tmp/.pipeline-service-exec-${id}`],
  },
  {
    backend: 'container-orchestrator',
    wrap: (id: string, command: string) => wrappedCommand(id, '/tmp', { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' }, command),
    kill: (id: string) => ['/bin/sh', '-c', KILL_SCRIPT, 'kill', id],
  },
] as const;

/** Runs argv as a background job of a shell, so it is not a process-group leader. */
const NOT_LEADING = (argv: readonly string[]) => ['/bin/sh', '-c', '"$@" & wait $!', 'not-leading', ...argv];

interface Running {
  lines: string[];
  /** Resolves with the first line that starts with the prefix. */
  line(prefix: string): Promise<string>;
  /** The exit code, once the output has ended. */
  exit: Promise<number | null>;
}

async function start(container: Docker.Container, argv: string[]): Promise<Running> {
  const exec = await container.exec({ Cmd: argv, AttachStdout: true, AttachStderr: true, User: '1000:1000' });
  const stream = await exec.start({ hijack: true, stdin: false });
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  docker.modem.demuxStream(stream, stdout, stderr);
  const lines: string[] = [];
  const waiting: { prefix: string; found: (line: string) => void }[] = [];
  const ended = new Promise<void>((done) => stream.once('end', done).once('close', done)).then(() => {
    stdout.end();
    stderr.end();
  });
  const drained = forEachOutputLine(stdout, stderr, (_stream, line) => {
    lines.push(line);
    for (const w of waiting.filter((x) => line.startsWith(x.prefix))) w.found(line);
  });
  const exit = ended.then(() => drained).then(async () => {
    for (;;) {
      const info = await exec.inspect();
      if (!info.Running) return info.ExitCode ?? null;
      await new Promise((done) => setTimeout(done, 20));
    }
  });
  const line = (prefix: string) => {
    const seen = lines.find((l) => l.startsWith(prefix));
    if (seen) return Promise.resolve(seen);
    return new Promise<string>((found, fail) => {
      waiting.push({ prefix, found });
      void exit.then(() => fail(new Error(`the command ended without a line "${prefix}…": ${JSON.stringify(lines)}`)));
    });
  };
  return { lines, line, exit };
}

describe.skipIf(unavailable)(`the exec wrappers started outside a group of their own${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  const containers: Docker.Container[] = [];

  beforeAll(async () => {
    await ensureSandboxImage(docker);
    await ensureSandboxImage(docker, NO_SETSID_TEST_IMAGE);
    await ensureBusyboxImage(docker);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(containers.map((c) => c.remove({ force: true }).catch(() => undefined)));
  });

  describe.each(IMAGES)('on an image: $kind', ({ image, setsid }) => {
    let container: Docker.Container;

    beforeAll(async () => {
      container = await docker.createContainer({
        Image: image, Cmd: ['/bin/sh', '-c', 'while :; do sleep 3600; done'], Labels: { 'pipeline-service.test': 'process-group' },
        HostConfig: { Init: true, NetworkMode: 'none' },
      });
      containers.push(container);
      await container.start();
    });

    describe.each(WRAPPERS)('the $backend wrapper', ({ wrap, kill }) => {
      it(`passes the exit code on${setsid ? ', running the command in a group the wrapper leads (setsid without -w)' : ''}`, async () => {
        const command = 'read -r _ _ _ p g _ < /proc/$$/stat; echo "wrapper=$p group=$g"; echo out; exit 3';
        const wrapped = await start(container, NOT_LEADING(wrap(randomUUID(), command)));
        expect(await wrapped.exit).toBe(3);
        const [, wrapper, group] = /^wrapper=(\d+) group=(\d+)$/.exec(wrapped.lines[0] ?? '') ?? [];
        expect(wrapped.lines, JSON.stringify(wrapped.lines)).toEqual([`wrapper=${wrapper} group=${group}`, 'out']);
        expect(group === wrapper).toBe(setsid);
      });

      it('a kill through the record ends the command with its child and grandchild', async () => {
        const id = randomUUID();
        const wrapped = await start(container, NOT_LEADING(wrap(id, 'sh -c \'sleep 331 & echo "grandchild $!"; wait\' & sleep 332; echo never')));
        await wrapped.line('grandchild ');
        expect(await (await start(container, kill(id))).exit).toBe(0);
        expect(await wrapped.exit).toBe(137);
        expect(wrapped.lines.filter((l) => l === 'never')).toEqual([]);
        const listed = await start(container, ['/bin/sh', '-c', LIVE_PROCESSES]);
        expect(await listed.exit).toBe(0);
        expect(running(listed.lines, 'sleep 33')).toEqual([]);
        expect(running(listed.lines, 'sh -c sleep')).toEqual([]);
      });
    });
  });
});
