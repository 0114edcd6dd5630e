import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, chmodSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** The image the Kubernetes stand-in's pods run in tests; built locally, no registry. */
export const KUBERNETES_TEST_IMAGE = 'pipeline-service-k8s-test:latest';

/** Programs the image carries (from this host), with the shared libraries `ldd` names for them. */
const PROGRAMS = [
  'sh', 'realpath', 'stat', 'base64', 'cat', 'ls', 'mkdir', 'rm', 'sleep', 'env', 'id', 'hostname', 'tr', 'head',
  'tail', 'wc', 'grep', 'sed', 'awk', 'tar', 'git', 'chmod', 'ln', 'cp', 'mv', 'touch', 'dirname', 'basename',
  'readlink', 'cut', 'sort', 'xargs', 'find', 'ps', 'kill', 'setsid', 'timeout', 'date', 'uname', 'mktemp', 'true', 'false',
];

/** True when the image is present (building it when absent); throws when it cannot be built. */
export function ensureKubernetesTestImage(): string {
  if (imagePresent()) return KUBERNETES_TEST_IMAGE;
  const root = mkdtempSync(join(tmpdir(), 'k8s-test-rootfs-'));
  try {
    buildRootFilesystem(root);
    execFileSync('sh', ['-c', `tar -C "${root}" -c . | docker import - ${KUBERNETES_TEST_IMAGE}`], { stdio: 'pipe' });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return KUBERNETES_TEST_IMAGE;
}

function imagePresent(): boolean {
  try {
    execFileSync('docker', ['image', 'inspect', KUBERNETES_TEST_IMAGE], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** `/usr/bin` and `/usr/lib*` hold everything; `/bin`, `/lib`, `/lib64` link there (Debian's merged /usr). */
function buildRootFilesystem(root: string): void {
  for (const dir of ['usr/bin', 'usr/lib', 'usr/lib64', 'etc', 'home/sandbox', 'root']) mkdirSync(join(root, dir), { recursive: true });
  for (const [link, target] of [['bin', 'usr/bin'], ['sbin', 'usr/bin'], ['lib', 'usr/lib'], ['lib64', 'usr/lib64']]) symlinkSync(target!, join(root, link!));
  mkdirSync(join(root, 'tmp'), { mode: 0o1777 });
  chmodSync(join(root, 'tmp'), 0o1777);
  const libraries = new Set<string>();
  for (const program of PROGRAMS) {
    const path = locate(program);
    if (!path) continue;
    copyFileSync(realpathSync(path), join(root, 'usr/bin', program));
    chmodSync(join(root, 'usr/bin', program), 0o755);
    for (const library of sharedLibraries(path)) libraries.add(library);
  }
  for (const library of libraries) {
    const target = join(root, underUsr(library));
    mkdirSync(dirname(target), { recursive: true });
    if (!existsSync(target)) copyFileSync(realpathSync(library), target);
  }
  writeFileSync(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\nsandbox:x:1000:1000:sandbox:/home/sandbox:/bin/sh\n');
  writeFileSync(join(root, 'etc/group'), 'root:x:0:\nsandbox:x:1000:\n');
  execFileSync('chown', ['1000:1000', join(root, 'home/sandbox')]);
}

function locate(program: string): string | null {
  if (program === 'sh') return '/bin/sh';
  for (const dir of ['/usr/bin', '/bin', '/usr/sbin', '/sbin']) if (existsSync(join(dir, program))) return join(dir, program);
  return null;
}

function sharedLibraries(program: string): string[] {
  let out = '';
  try {
    out = execFileSync('ldd', [program], { encoding: 'utf8' });
  } catch {
    return []; // statically linked
  }
  return [...out.matchAll(/(\/\S+\.so[^\s]*)/g)].map((m) => m[1]!);
}

function underUsr(path: string): string {
  const relative = path.replace(/^\/+/, '');
  return relative.startsWith('usr/') ? relative : `usr/${relative}`;
}
