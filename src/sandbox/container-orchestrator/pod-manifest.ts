import { randomBytes } from 'node:crypto';
import type { V1NetworkPolicy, V1Pod, V1Secret } from '@kubernetes/client-node';
import type { RegistryAuth, SandboxConfig } from '../../config/service-config.js';
import { SandboxNetwork } from '../../config/service-config.js';
import { SandboxLabel, type SandboxSpec } from '../sandbox-backend.js';

/** Where commands start (an emptyDir: empty, writable by any user, gone with the pod). */
export const SANDBOX_WORKDIR = '/workspace';
/** HOME, apart from the tree (an emptyDir too). */
export const SANDBOX_HOME = '/home/sandbox';
export const SANDBOX_CONTAINER = 'sandbox';
export const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The label (value `none`) a deny-all NetworkPolicy selects: pods of `network: none`. */
export const NETWORK_LABEL = 'pipeline-service/network';
export const NO_NETWORK_POLICY = 'pipeline-service-sandbox-no-network';
/** The run id as given (a label value may have had to be changed to be valid). */
export const RUN_ID_ANNOTATION = 'pipeline-service/run-id';
/** The `kubernetes.io/dockerconfigjson` Secret holding `sandbox.registry` (pods name it in `imagePullSecrets`). */
export const REGISTRY_SECRET = 'pipeline-service-registry';
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';

/** Sleeps until told to stop, and stops at once on SIGTERM (so deletion does not wait a grace period). */
const IDLE = 'trap "exit 0" TERM; while :; do sleep 3600 & wait $!; done';

/**
 * A valid label value for any text: characters outside `[A-Za-z0-9-_.]` become `-`, at most 63
 * characters, alphanumeric at both ends (`x` when nothing is left).
 */
export function labelValue(text: string): string {
  const value = text.replace(/[^A-Za-z0-9_.-]/g, '-').slice(0, 63).replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
  return value || 'x';
}

/** `ps-<run id, 8>-<name>-<5 random>`: a DNS-1123 label (lowercase, ≤ 63). */
export function podName(spec: SandboxSpec): string {
  const part = (text: string, max: number) => text.toLowerCase().replace(/[^a-z0-9-]/g, '-').replace(/-+/g, '-').slice(0, max).replace(/^-+|-+$/g, '');
  const suffix = randomBytes(4).toString('hex').slice(0, 5);
  return ['ps', part(spec.runId, 8), part(spec.name, 40), suffix].filter(Boolean).join('-');
}

/** `uid:gid` of `sandbox.user`; root is refused (sandboxes never run as root). */
export function sandboxUser(user: string): { uid: number; gid: number } {
  const [uid, gid] = user.split(':').map(Number);
  if (!Number.isInteger(uid) || uid! <= 0) throw new Error(`sandbox.user "${user}" must be a non-root numeric uid[:gid]`);
  return { uid: uid!, gid: Number.isInteger(gid) ? gid! : uid! };
}

export function isolatedNetwork(config: SandboxConfig): boolean {
  return config.network === SandboxNetwork.None;
}

/** The environment commands see: PATH, HOME, LANG and the run's variables. */
export function sandboxEnvironment(spec: SandboxSpec): Record<string, string> {
  return { PATH: SANDBOX_PATH, HOME: SANDBOX_HOME, LANG: 'C.UTF-8', ...spec.env };
}

/**
 * One pod for one sandbox: its image (the spec's, else `sandbox.image`) idling until commands
 * come through exec; requests = limits = the footprint; never restarted; no service-account token,
 * no service links; non-root, no privilege escalation, no capabilities, the runtime's seccomp
 * profile; the contract's labels (plus the network label when `network: none`).
 */
export function podManifest(spec: SandboxSpec, config: SandboxConfig, instance: string, name: string): V1Pod {
  const { uid, gid } = sandboxUser(config.user);
  const resources = { cpu: `${Math.max(1, Math.round(config.cpu * 1000))}m`, memory: String(Math.round(config.memory)) };
  const labels: Record<string, string> = {
    [SandboxLabel.RunId]: labelValue(spec.runId),
    [SandboxLabel.Sandbox]: labelValue(spec.name),
    [SandboxLabel.Instance]: labelValue(instance),
  };
  if (isolatedNetwork(config)) labels[NETWORK_LABEL] = SandboxNetwork.None;
  const pullSecrets = pullCredentials(config) ? { imagePullSecrets: [{ name: REGISTRY_SECRET }] } : {};
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels, annotations: { [RUN_ID_ANNOTATION]: spec.runId } },
    spec: {
      restartPolicy: 'Never',
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      terminationGracePeriodSeconds: 1,
      securityContext: { runAsNonRoot: true, runAsUser: uid, runAsGroup: gid, seccompProfile: { type: 'RuntimeDefault' } },
      volumes: [{ name: 'work', emptyDir: {} }, { name: 'home', emptyDir: {} }],
      ...pullSecrets,
      containers: [{
        name: SANDBOX_CONTAINER,
        image: spec.image ?? config.image,
        imagePullPolicy: 'IfNotPresent',
        command: ['/bin/sh', '-c', IDLE],
        workingDir: SANDBOX_WORKDIR,
        env: Object.entries(sandboxEnvironment(spec)).map(([key, value]) => ({ name: key, value })),
        resources: { requests: resources, limits: resources },
        securityContext: {
          runAsNonRoot: true,
          runAsUser: uid,
          runAsGroup: gid,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
          seccompProfile: { type: 'RuntimeDefault' },
        },
        volumeMounts: [{ name: 'work', mountPath: SANDBOX_WORKDIR }, { name: 'home', mountPath: SANDBOX_HOME }],
      }],
    },
  };
}

/** Denies all traffic in and out of the pods carrying the network label `none`. */
export function noNetworkPolicy(): V1NetworkPolicy {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: NO_NETWORK_POLICY },
    spec: { podSelector: { matchLabels: { [NETWORK_LABEL]: SandboxNetwork.None } }, policyTypes: ['Ingress', 'Egress'], ingress: [], egress: [] },
  };
}

/** `sandbox.registry` when images are pulled with credentials (a registry without a password pulls anonymously, as the engine backend does). */
export function pullCredentials(config: SandboxConfig): (RegistryAuth & { password: string }) | null {
  const registry = config.registry;
  return registry && registry.password !== null ? { ...registry, password: registry.password } : null;
}

/**
 * The image pull Secret for `sandbox.registry`: type `kubernetes.io/dockerconfigjson`, its
 * `.dockerconfigjson` the `{"auths": {server: {username, password, auth}}}` document the kubelet reads.
 */
export function registrySecret(registry: RegistryAuth & { password: string }): V1Secret {
  const { server, username, password } = registry;
  const auth = Buffer.from(`${username}:${password}`).toString('base64');
  const document = JSON.stringify({ auths: { [server]: { username, password, auth } } });
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: REGISTRY_SECRET, labels: { [MANAGED_BY_LABEL]: 'pipeline-service' } },
    type: 'kubernetes.io/dockerconfigjson',
    data: { '.dockerconfigjson': Buffer.from(document).toString('base64') },
  };
}
