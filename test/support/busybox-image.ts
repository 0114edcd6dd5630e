import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { importRootfs } from './sandbox-image.js';

const run = promisify(execFile);

/** Where the host's static busybox is (Debian's busybox-static; `.ci/run` installs it). */
const BUSYBOX = '/bin/busybox';

/** An Alpine-like image: busybox alone (its sh is ash, its setsid has no `-w`), no util-linux. */
export const BUSYBOX_IMAGE = 'pipeline-service-busybox-test:latest';

/**
 * Builds the image once (kept when present) from the host's static busybox with `docker import`,
 * no registry: /bin/busybox and a link for each of its applets where busybox installs them
 * (`--list-full`, as Alpine has them); /etc/passwd with the sandbox user 1000; /tmp sticky.
 * (Leaving the setsid link out would not make an image without setsid: Debian's busybox ash
 * runs its applets whatever the links; `NO_SETSID_TEST_IMAGE` is that image.)
 */
export async function ensureBusyboxImage(docker = new Docker()): Promise<string> {
  const image = BUSYBOX_IMAGE;
  if (await docker.getImage(image).inspect().then(() => true, () => false)) return image;
  if (!existsSync(BUSYBOX)) throw new Error(`the busybox test image needs ${BUSYBOX} (Debian: apt-get install busybox-static)`);
  const root = await mkdtemp(join(tmpdir(), 'busybox-rootfs-'));
  try {
    for (const dir of ['bin', 'sbin', 'usr/bin', 'usr/sbin', 'etc', 'tmp', 'home', 'root', 'dev', 'proc', 'sys']) {
      await mkdir(join(root, dir), { recursive: true });
    }
    await chmod(join(root, 'tmp'), 0o1777);
    await copyFile(BUSYBOX, join(root, 'bin/busybox'));
    await chmod(join(root, 'bin/busybox'), 0o755);
    const { stdout } = await run(BUSYBOX, ['--list-full']);
    for (const applet of stdout.split('\n').filter(Boolean)) {
      if (applet === 'bin/busybox') continue;
      const link = join(root, applet);
      await mkdir(dirname(link), { recursive: true });
      await symlink(relative(dirname(link), join(root, 'bin/busybox')), link);
    }
    await writeFile(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\nsandbox:x:1000:1000:sandbox:/home/sandbox:/bin/sh\n');
    await writeFile(join(root, 'etc/group'), 'root:x:0:\nsandbox:x:1000:\n');
    await importRootfs(docker, root, image);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  return image;
}
