import { Readable } from 'node:stream';
import { pack } from 'tar-stream';
import { CONTAINER_HOME, CONTAINER_WORKDIR } from './container-options.js';

/**
 * The directories a fresh container gets through the archive endpoint before it starts: the
 * working directory and HOME owned by the sandbox user (capabilities are dropped, so nothing in
 * the container could chown them later), and a world-writable /tmp (minimal images may lack one).
 */
export function sandboxDirectories(owner: { uid: number; gid: number }): Readable {
  const archive = pack();
  const root = { uid: 0, gid: 0, type: 'directory' as const, mode: 0o755 };
  archive.entry({ ...root, name: 'tmp/', mode: 0o1777 });
  archive.entry({ ...root, name: `${CONTAINER_WORKDIR.slice(1)}/`, uid: owner.uid, gid: owner.gid });
  archive.entry({ ...root, name: `${CONTAINER_HOME.split('/')[1]}/` });
  archive.entry({ ...root, name: `${CONTAINER_HOME.slice(1)}/`, uid: owner.uid, gid: owner.gid });
  archive.finalize();
  return Readable.from(archive, { objectMode: false });
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const KEPT = new Set(['PATH', 'HOME', 'LANG']);

/**
 * Variables a command must not see although every process of the container gets them: HOSTNAME
 * (Docker's), `container` (Podman's) and whatever ENV the image declares, other than PATH, HOME,
 * LANG and the run's own. Commands then see exactly what the in-process backend gives them.
 */
export function unsetNames(imageEnv: readonly string[], runEnv: Readonly<Record<string, string>>): string[] {
  const names = imageEnv.map((e) => e.split('=')[0]!).filter((n) => !KEPT.has(n) && !(n in runEnv));
  return [...new Set(['HOSTNAME', 'container', ...names])].filter((n) => NAME.test(n));
}
