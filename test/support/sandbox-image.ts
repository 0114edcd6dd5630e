import { execFile, spawn } from 'node:child_process';
import { existsSync, openSync } from 'node:fs';
import { chmod, copyFile, cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import Docker from 'dockerode';

const run = promisify(execFile);

/** The image container-engine tests run: built here from this host's binaries, never pulled. */
export const TEST_IMAGE = 'pipeline-service-test:latest';
/** The same image without setsid: commands must still run, and be killed with their children. */
export const NO_SETSID_TEST_IMAGE = 'pipeline-service-test-no-setsid:latest';

/** What the agent tools, command pipelines and the backend's own wrapper call inside a sandbox. */
const BINARIES = [
  'sh', 'dash', 'realpath', 'readlink', 'stat', 'base64', 'cat', 'ls', 'mkdir', 'rm', 'rmdir', 'mv', 'cp', 'ln', 'touch',
  'chmod', 'head', 'tail', 'wc', 'sleep', 'env', 'id', 'hostname', 'tr', 'cut', 'sort', 'uniq', 'printf', 'echo', 'true',
  'false', 'test', 'dirname', 'basename', 'mktemp', 'tee', 'od', 'diff', 'find', 'xargs', 'uname', 'grep', 'sed', 'awk',
  'tar', 'gzip', 'git', 'setsid', 'kill', 'ps',
];

/**
 * Starts dockerd when it is installed but not answering (the README's test command runs on a
 * fresh machine), and answers null when an engine is reachable, else why the container-engine
 * tests are skipped. It never throws: a machine without an engine skips those tests, visibly.
 */
export async function ensureDockerEngine(docker = new Docker()): Promise<string | null> {
  if (await pings(docker)) return null;
  const dockerd = ['/usr/sbin/dockerd', '/usr/bin/dockerd'].find((p) => existsSync(p));
  if (!dockerd) return 'no container engine: the Docker socket does not answer and dockerd is not installed';
  if (process.getuid?.() !== 0) return `the Docker socket does not answer and dockerd cannot be started by uid ${process.getuid?.()}`;
  const log = openSync(join(tmpdir(), 'dockerd-tests.log'), 'a');
  spawn(dockerd, [], { detached: true, stdio: ['ignore', log, log] }).unref();
  for (let i = 0; i < 60; i++) {
    await new Promise((done) => setTimeout(done, 500));
    if (await pings(docker)) return null;
  }
  return `dockerd was started but did not answer within 30 s (see ${join(tmpdir(), 'dockerd-tests.log')})`;
}

async function pings(docker: Docker): Promise<boolean> {
  try {
    await docker.ping();
    return true;
  } catch {
    return false;
  }
}

/**
 * Builds TEST_IMAGE once (kept when present) by importing a root filesystem assembled from this
 * host's binaries and their shared libraries: dash as /bin/sh, GNU coreutils, grep, sed, awk, tar,
 * git, setsid (left out of NO_SETSID_TEST_IMAGE) and kill; /etc/passwd with the sandbox user
 * 1000; /tmp sticky. No registry involved.
 */
export async function ensureSandboxImage(docker = new Docker(), image: typeof TEST_IMAGE | typeof NO_SETSID_TEST_IMAGE = TEST_IMAGE): Promise<string> {
  if (await docker.getImage(image).inspect().then(() => true, () => false)) return image;
  const root = await mkdtemp(join(tmpdir(), 'sandbox-rootfs-'));
  try {
    await assembleRootfs(root, image === TEST_IMAGE ? BINARIES : BINARIES.filter((b) => b !== 'setsid'));
    await importRootfs(docker, root, image);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  return image;
}

/** `docker import` of a root filesystem directory as `image` (repo:tag), with `/bin/sh` as its command. */
export async function importRootfs(docker: Docker, root: string, image: string): Promise<void> {
  const tar = spawn('tar', ['-C', root, '-cf', '-', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [repo, tag] = image.split(':') as [string, string];
  const options: object = { repo, tag, changes: ['CMD ["/bin/sh"]'] };
  const stream: NodeJS.ReadableStream = await docker.importImage(tar.stdout, options);
  await new Promise<void>((done, fail) => docker.modem.followProgress(stream, (error) => (error ? fail(error) : done())));
}

async function assembleRootfs(root: string, binaries: readonly string[]): Promise<void> {
  // Debian's merged /usr: /bin, /lib, /lib64 and /sbin are links into /usr, as on the host.
  for (const dir of ['usr/bin', 'usr/sbin', 'usr/lib', 'usr/lib64', 'etc', 'tmp', 'home', 'root', 'dev', 'proc', 'sys']) {
    await mkdir(join(root, dir), { recursive: true });
  }
  for (const link of ['bin', 'sbin', 'lib', 'lib64']) await symlink(`usr/${link}`, join(root, link));
  await chmod(join(root, 'tmp'), 0o1777);
  const files = new Set<string>();
  for (const name of binaries) {
    const found = ['/usr/bin', '/usr/sbin', '/bin', '/sbin'].map((d) => join(d, name)).find((p) => existsSync(p));
    if (!found) throw new Error(`the test image needs ${name}, which this host lacks`);
    files.add(found);
    for (const library of await sharedLibraries(found)) files.add(library);
  }
  for (const file of files) {
    const target = join(root, file);
    await mkdir(dirname(target), { recursive: true });
    await copyFile(file, target); // follows links: /usr/bin/awk → gawk's binary
    await chmod(target, 0o755);
  }
  if (existsSync('/usr/share/git-core/templates')) {
    await cp('/usr/share/git-core/templates', join(root, 'usr/share/git-core/templates'), { recursive: true, dereference: true });
  }
  await writeFile(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\nsandbox:x:1000:1000:sandbox:/home/sandbox:/bin/sh\n');
  await writeFile(join(root, 'etc/group'), 'root:x:0:\nsandbox:x:1000:\n');
}

/** The shared libraries `ldd` names for a binary (the dynamic loader included). */
async function sharedLibraries(binary: string): Promise<string[]> {
  const { stdout } = await run('ldd', [binary]).catch(() => ({ stdout: '' }));
  return [...stdout.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)].map((m) => m[1]!);
}
