import Docker from 'dockerode';
import { pack } from 'tar-stream';
import { parseQuantity } from './quantity.js';

/** Docker label every container of a stand-in carries, valued with the stand-in's id (cleanup). */
export const STAND_IN_LABEL = 'pipeline-service.test/kubernetes-stand-in';

/** The part of a Pod spec the runtime reads (core/v1 field names). */
export interface PodSpecView {
  containers: {
    name: string;
    image: string;
    command?: string[];
    args?: string[];
    env?: { name: string; value?: string }[];
    workingDir?: string;
    resources?: { limits?: Record<string, string>; requests?: Record<string, string> };
    securityContext?: SecurityContextView;
    volumeMounts?: { name: string; mountPath: string }[];
  }[];
  securityContext?: SecurityContextView;
  volumes?: { name: string; emptyDir?: object }[];
  automountServiceAccountToken?: boolean;
}

interface SecurityContextView {
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
  allowPrivilegeEscalation?: boolean;
  capabilities?: { add?: string[]; drop?: string[] };
  seccompProfile?: { type: string };
}

/** Why a pod's container could not start, as the kubelet reports it in `state.waiting`. */
export class ContainerWaiting extends Error {
  constructor(readonly reason: string, message: string) {
    super(message);
  }
}

export interface PodIdentity {
  namespace: string;
  name: string;
  uid: string;
  labels: Record<string, string>;
  /** `none`: a deny-all NetworkPolicy selects the pod → Docker NetworkMode none; else bridge. */
  networkIsolated: boolean;
}

/**
 * Runs a Pod's (single) container on the Docker engine as the kubelet would: image, command/args,
 * env (plus the KUBERNETES_SERVICE_* variables every pod gets), workingDir, limits → cgroup
 * limits, securityContext → user, capabilities, no-new-privileges; hostname = pod name; emptyDir
 * volumes as world-writable empty directories; the service-account token file unless
 * `automountServiceAccountToken: false`.
 */
export class PodRuntime {
  constructor(readonly docker: Docker, private readonly standInId: string) {}

  async start(pod: PodIdentity, spec: PodSpecView): Promise<{ id: string; image: string; imageId: string; ip: string }> {
    const c = spec.containers[0]!;
    const image = await this.docker.getImage(c.image).inspect().catch(() => {
      throw new ContainerWaiting(
        'ErrImagePull',
        `failed to pull and unpack image "${qualified(c.image)}": failed to resolve reference "${qualified(c.image)}": ${qualified(c.image)}: not found`,
      );
    });
    const security = { ...spec.securityContext, ...c.securityContext };
    const uid = security.runAsUser ?? imageUser(image.Config?.User);
    if (security.runAsNonRoot && (uid === null || uid === 0)) {
      throw new ContainerWaiting('CreateContainerConfigError', uid === null
        ? 'container has runAsNonRoot and image has non-numeric user, cannot verify user is non-root'
        : 'container has runAsNonRoot and image will run as root');
    }
    const limits = c.resources?.limits ?? {};
    const memory = limits.memory ? Math.round(parseQuantity(limits.memory)) : undefined;
    const user = security.runAsUser !== undefined ? `${security.runAsUser}${security.runAsGroup !== undefined ? `:${security.runAsGroup}` : ''}` : undefined;
    const env = [`KUBERNETES_SERVICE_HOST=10.96.0.1`, `KUBERNETES_SERVICE_PORT=443`, `KUBERNETES_PORT=tcp://10.96.0.1:443`];
    for (const e of c.env ?? []) env.push(`${e.name}=${e.value ?? ''}`);
    const container = await this.docker.createContainer({
      name: `k8s_${c.name}_${pod.name}_${pod.namespace}_${pod.uid.slice(0, 8)}`,
      Image: c.image,
      Entrypoint: c.command,
      Cmd: c.args ?? (c.command ? [] : undefined),
      Env: env,
      WorkingDir: c.workingDir,
      User: user,
      Hostname: pod.name,
      Labels: { ...pod.labels, 'io.kubernetes.pod.name': pod.name, 'io.kubernetes.pod.namespace': pod.namespace, [STAND_IN_LABEL]: this.standInId },
      HostConfig: {
        NetworkMode: pod.networkIsolated ? 'none' : 'bridge',
        NanoCpus: limits.cpu ? Math.round(parseQuantity(limits.cpu) * 1e9) : undefined,
        Memory: memory,
        MemorySwap: memory,
        CapDrop: security.capabilities?.drop,
        CapAdd: security.capabilities?.add,
        SecurityOpt: [
          ...(security.allowPrivilegeEscalation === false ? ['no-new-privileges'] : []),
          ...(security.seccompProfile?.type === 'Unconfined' ? ['seccomp=unconfined'] : []),
        ],
      },
    });
    await container.putArchive(await this.podFiles(spec, uid ?? 0, pod.namespace), { path: '/' });
    await container.start();
    const info = await container.inspect();
    return { id: container.id, image: c.image, imageId: image.Id, ip: Object.values(info.NetworkSettings?.Networks ?? {})[0]?.IPAddress ?? '' };
  }

  async remove(containerId: string): Promise<void> {
    await this.docker.getContainer(containerId).remove({ force: true, v: true }).catch(() => undefined);
  }

  /** Removes every container this stand-in started (its `stop()`). */
  async removeAll(): Promise<void> {
    const containers = await this.docker.listContainers({ all: true, filters: { label: [`${STAND_IN_LABEL}=${this.standInId}`] } });
    await Promise.all(containers.map((c) => this.remove(c.Id)));
  }

  /** emptyDir mount points (mode 0777, as the kubelet makes them) and the service-account token. */
  private async podFiles(spec: PodSpecView, uid: number, namespace: string): Promise<Buffer> {
    const archive = pack();
    const emptyDirs = new Set((spec.volumes ?? []).filter((v) => v.emptyDir).map((v) => v.name));
    const made = new Set<string>();
    const directory = (path: string, mode: number) => {
      const parts = path.replace(/^\/+|\/+$/g, '').split('/');
      for (let i = 1; i <= parts.length; i++) {
        const name = parts.slice(0, i).join('/');
        if (made.has(name)) continue;
        made.add(name);
        archive.entry({ name: `${name}/`, type: 'directory', mode: i === parts.length ? mode : 0o755 });
      }
    };
    for (const mount of spec.containers[0]!.volumeMounts ?? []) if (emptyDirs.has(mount.name)) directory(mount.mountPath, 0o777);
    if (spec.automountServiceAccountToken !== false) {
      directory('/var/run/secrets/kubernetes.io/serviceaccount', 0o755);
      archive.entry({ name: 'var/run/secrets/kubernetes.io/serviceaccount/token', mode: 0o644, uid }, 'stand-in-service-account-token');
      archive.entry({ name: 'var/run/secrets/kubernetes.io/serviceaccount/namespace', mode: 0o644 }, namespace);
    }
    archive.finalize();
    const chunks: Buffer[] = [];
    for await (const chunk of archive) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }
}

function qualified(image: string): string {
  const named = image.includes('/') ? image : `docker.io/library/${image}`;
  return /:[^/]+$/.test(named) || named.includes('@') ? named : `${named}:latest`;
}

function imageUser(user: string | undefined): number | null {
  if (!user) return 0;
  const id = Number(user.split(':')[0]);
  return Number.isInteger(id) ? id : null;
}
