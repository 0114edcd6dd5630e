import { randomBytes } from 'node:crypto';
import type { ContainerCreateOptions } from 'dockerode';
import { type SandboxConfig, SandboxNetwork } from '../../config/service-config.js';
import { SandboxLabel, type SandboxSpec } from '../sandbox-backend.js';

/** Where the tree lives inside every container, and the HOME apart from it (tool caches stay out of the tree). */
export const CONTAINER_WORKDIR = '/work';
export const CONTAINER_HOME = '/home/sandbox';
export const DEFAULT_CONTAINER_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * Beyond the contract's three labels: the deployment a container belongs to (its store key
 * prefix). The sweep only removes containers of its own deployment, so two deployments (or test
 * servers) sharing one engine never remove each other's live sandboxes, whose runs they cannot know.
 */
export const SCOPE_LABEL = 'pipeline-service/scope';

/** `uid[:gid]` as numbers (a lone uid is its own group). */
export function sandboxUser(user: string): { uid: number; gid: number } {
  const [uid, gid] = user.split(':');
  return { uid: Number(uid), gid: Number(gid ?? uid) };
}

/** `pipeline-service-<first 8 of the run id>-<sandbox>-<random>`, within Docker's name alphabet. */
export function containerName(spec: SandboxSpec): string {
  const safe = spec.name.replace(/[^A-Za-z0-9_.-]/g, '_');
  return `pipeline-service-${spec.runId.slice(0, 8)}-${safe}-${randomBytes(4).toString('hex')}`;
}

/**
 * One sandbox's container: an idle process under the engine's init (which reaps what killed
 * commands leave behind) waiting for execs; the footprint as both request and limit (no swap on
 * top); a PID limit; every capability dropped and no privilege escalation, a non-root user; no
 * host path mounted (trees move through the archive endpoints); no network unless `bridge`.
 * The environment is PATH (the image's own, so its toolchain is found), HOME, LANG and the run's
 * variables: nothing of the server's.
 */
export function containerOptions(
  config: SandboxConfig, spec: SandboxSpec, image: string, imagePath: string | null, instanceId: string, scope: string | null,
): ContainerCreateOptions {
  const env = { PATH: imagePath ?? DEFAULT_CONTAINER_PATH, HOME: CONTAINER_HOME, LANG: 'C.UTF-8', ...spec.env };
  return {
    name: containerName(spec),
    Image: image,
    Entrypoint: ['/bin/sh', '-c'],
    Cmd: ['while :; do sleep 3600; done'],
    WorkingDir: CONTAINER_WORKDIR,
    User: config.user,
    Env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
    Labels: {
      [SandboxLabel.RunId]: spec.runId, [SandboxLabel.Sandbox]: spec.name, [SandboxLabel.Instance]: instanceId,
      ...(scope === null ? {} : { [SCOPE_LABEL]: scope }),
    },
    NetworkDisabled: config.network !== SandboxNetwork.Bridge,
    HostConfig: {
      NanoCpus: Math.round(config.cpu * 1e9),
      Memory: config.memory,
      MemorySwap: config.memory,
      PidsLimit: config.pids_limit,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      NetworkMode: config.network === SandboxNetwork.Bridge ? 'bridge' : 'none',
      ReadonlyRootfs: false,
      Init: true,
      Binds: [],
      Mounts: [],
    },
  };
}
