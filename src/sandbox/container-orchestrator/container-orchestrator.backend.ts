import { hostname } from 'node:os';
import { ApiException, CoreV1Api, Exec, type KubeConfig, NetworkingV1Api, VersionApi } from '@kubernetes/client-node';
import { scrubSecrets } from '../../common/secret-scrubber.js';
import { withTimeout } from '../../common/with-timeout.js';
import type { RegistryAuth, SandboxConfig } from '../../config/service-config.js';
import type { BackendVersion, ProbeResult, Sandbox, SandboxBackend, SandboxSpec } from '../sandbox-backend.js';
import { SandboxLabel } from '../sandbox-backend.js';
import { CONTAINER_ORCHESTRATOR } from './container-orchestrator.descriptor.js';
import { loadKubeConfig } from './kube-config.js';
import { OrchestratorSandbox } from './orchestrator.sandbox.js';
import {
  isolatedNetwork, noNetworkPolicy, podManifest, podName, pullCredentials, REGISTRY_SECRET, registrySecret, RUN_ID_ANNOTATION, sandboxEnvironment,
} from './pod-manifest.js';
import { waitForRunning } from './wait-for-pod.js';

const PROBE_TIMEOUT_MS = 10_000;
/** Create/replace rounds for the pull Secret when another writer keeps deleting or creating it in between. */
const PULL_SECRET_ATTEMPTS = 3;

export interface ContainerOrchestratorOptions {
  /** This server instance (the `pipeline-service/instance` label); default: the host name. */
  instance?: string;
  /** The cluster connection; default: from `sandbox.orchestrator.kubeconfig`, in-cluster or the default kubeconfig. */
  kubeConfig?: KubeConfig;
  /** Used when `kubeConfig` is not given: the server runs in a pod. */
  inCluster?: boolean;
  /** How long a pod may take to run (image pull included). */
  startTimeoutMs?: number;
}

/**
 * Sandboxes as Kubernetes pods (one per sandbox) in `sandbox.orchestrator.namespace`, driven
 * through the API server: pods create/watch/delete/list and the exec subresource.
 */
export class ContainerOrchestratorBackend implements SandboxBackend {
  readonly kind = CONTAINER_ORCHESTRATOR;
  private readonly client: { kubeConfig: KubeConfig; core: CoreV1Api; networking: NetworkingV1Api; execApi: Exec } | { error: Error };
  private readonly instance: string;
  private readonly namespace: string;
  private readonly startTimeoutMs: number;
  private networkPolicyReady: Promise<void> | null = null;
  private pullSecretReady: Promise<void> | null = null;

  constructor(private readonly config: SandboxConfig, options: ContainerOrchestratorOptions = {}) {
    try {
      // A kubeconfig that cannot be read is the probe's finding, never a failure to start the server.
      const kubeConfig = options.kubeConfig ?? loadKubeConfig(config.orchestrator.kubeconfig, options.inCluster ?? false);
      this.client = { kubeConfig, core: kubeConfig.makeApiClient(CoreV1Api), networking: kubeConfig.makeApiClient(NetworkingV1Api), execApi: new Exec(kubeConfig) };
    } catch (error) {
      this.client = { error: new Error(`the Kubernetes configuration could not be loaded: ${(error as Error).message}`) };
    }
    this.instance = options.instance ?? hostname();
    this.namespace = config.orchestrator.namespace;
    this.startTimeoutMs = options.startTimeoutMs ?? 120_000;
  }

  private get api(): { kubeConfig: KubeConfig; core: CoreV1Api; networking: NetworkingV1Api; execApi: Exec } {
    if ('error' in this.client) throw this.client.error;
    return this.client;
  }

  /** The cluster's version, and whether a sandbox pod may be created (a server-side dry run). */
  async probe(): Promise<ProbeResult> {
    if ('error' in this.client) {
      return { ok: false, reason: this.client.error.message, fixHint: 'set sandbox.orchestrator.kubeconfig to a readable kubeconfig, or run the server in a pod of the cluster' };
    }
    const server = this.api.kubeConfig.getCurrentCluster()?.server ?? '(no cluster configured)';
    try {
      return await withTimeout((async (): Promise<ProbeResult> => {
        const version = await this.api.kubeConfig.makeApiClient(VersionApi).getCode();
        const manifest = podManifest({ runId: 'probe', name: 'probe', env: {} }, this.config, this.instance, 'pipeline-service-probe');
        await this.api.core.createNamespacedPod({ namespace: this.namespace, body: manifest, dryRun: 'All' });
        return { ok: true, detail: `Kubernetes ${version.gitVersion} at ${server}: a sandbox pod can be created in namespace ${this.namespace}` };
      })(), PROBE_TIMEOUT_MS, `no answer from the Kubernetes API server at ${server} within ${PROBE_TIMEOUT_MS / 1000} s`);
    } catch (error) {
      return probeFailure(error, server, this.namespace);
    }
  }

  /** The API server's `GET /version`. */
  async version(): Promise<BackendVersion> {
    const server = this.api.kubeConfig.getCurrentCluster()?.server ?? null;
    const version = await this.api.kubeConfig.makeApiClient(VersionApi).getCode();
    return { version: `Kubernetes ${version.gitVersion}`, target: server };
  }

  async create(spec: SandboxSpec): Promise<Sandbox> {
    if (isolatedNetwork(this.config)) await this.ensureNoNetworkPolicy();
    await this.ensurePullSecret();
    const name = podName(spec);
    const manifest = podManifest(spec, this.config, this.instance, name);
    const created = await this.api.core.createNamespacedPod({ namespace: this.namespace, body: manifest }).catch((error: unknown) => {
      throw new Error(`creating sandbox pod ${name} in namespace ${this.namespace} failed: ${apiMessage(error)}`);
    });
    const remove = () => this.deletePod(name);
    try {
      await waitForRunning(this.api.kubeConfig, this.namespace, created, this.startTimeoutMs);
    } catch (error) {
      await remove();
      throw new Error(`sandbox pod ${name} for ${spec.name}: ${(error as Error).message}`, { cause: error });
    }
    return new OrchestratorSandbox(spec.name, { namespace: this.namespace, pod: name }, this.api.execApi, sandboxEnvironment(spec), remove);
  }

  /** Deletes the pods (this namespace, any instance) whose run is no longer live; those already terminating are not counted. */
  async sweep(isLive: (runId: string) => Promise<boolean>): Promise<number> {
    const pods = await this.api.core.listNamespacedPod({ namespace: this.namespace, labelSelector: SandboxLabel.RunId });
    let removed = 0;
    for (const pod of pods.items) {
      const runId = pod.metadata?.annotations?.[RUN_ID_ANNOTATION] ?? pod.metadata?.labels?.[SandboxLabel.RunId];
      if (!runId || !pod.metadata?.name || pod.metadata.deletionTimestamp || (await isLive(runId))) continue;
      await this.deletePod(pod.metadata.name);
      removed += 1;
    }
    return removed;
  }

  /** Deletes a pod at once (grace 0); one already gone is fine. */
  private async deletePod(name: string): Promise<void> {
    try {
      await this.api.core.deleteNamespacedPod({ name, namespace: this.namespace, gracePeriodSeconds: 0 });
    } catch (error) {
      if (error instanceof ApiException && error.code === 404) return;
      throw error;
    }
  }

  /** `network: none`: the deny-all NetworkPolicy selecting the sandboxes' network label exists (made once). */
  private ensureNoNetworkPolicy(): Promise<void> {
    this.networkPolicyReady ??= this.api.networking.createNamespacedNetworkPolicy({ namespace: this.namespace, body: noNetworkPolicy() }).then(
      () => undefined,
      (error: unknown) => {
        if (error instanceof ApiException && error.code === 409) return;
        this.networkPolicyReady = null;
        throw new Error(`sandbox.network none needs the NetworkPolicy ${noNetworkPolicy().metadata!.name} in namespace ${this.namespace}: ${apiMessage(error)}`);
      },
    );
    return this.networkPolicyReady;
  }

  /**
   * `sandbox.registry` with a password: the Secret `pipeline-service-registry` holds exactly these
   * credentials (created, or replaced when there; once per backend instance, again after a
   * failure). The password is scrubbed from any error.
   */
  private ensurePullSecret(): Promise<void> {
    const registry = pullCredentials(this.config);
    if (!registry) return Promise.resolve();
    this.pullSecretReady ??= this.writePullSecret(registry).catch((error: unknown) => {
      this.pullSecretReady = null;
      const secrets = [registry.password];
      const message = scrubSecrets(`sandbox.registry needs the image pull Secret ${REGISTRY_SECRET} in namespace ${this.namespace}: ${apiMessage(error)}`, secrets);
      throw new Error(message);
    });
    return this.pullSecretReady;
  }

  /** Create; when it exists (409) replace; when it went away meanwhile (404) create again. */
  private async writePullSecret(registry: RegistryAuth & { password: string }): Promise<void> {
    const body = registrySecret(registry);
    const race = (error: unknown, code: number) => error instanceof ApiException && error.code === code;
    for (let attempt = 0; attempt < PULL_SECRET_ATTEMPTS; attempt++) {
      try {
        await this.api.core.createNamespacedSecret({ namespace: this.namespace, body });
        return;
      } catch (error) {
        if (!race(error, 409)) throw error;
      }
      try {
        await this.api.core.replaceNamespacedSecret({ name: REGISTRY_SECRET, namespace: this.namespace, body });
        return;
      } catch (error) {
        if (!race(error, 404)) throw error;
      }
    }
    throw new Error(`it was deleted and created again by another writer ${PULL_SECRET_ATTEMPTS} times in a row`);
  }
}

function probeFailure(error: unknown, server: string, namespace: string): ProbeResult {
  if (error instanceof ApiException) {
    const message = apiMessage(error);
    if (error.code === 401) return { ok: false, reason: `the Kubernetes API server at ${server} refused the credentials: ${message}`, fixHint: 'renew the token or client certificate of sandbox.orchestrator.kubeconfig (or the service account)' };
    if (error.code === 403) {
      return { ok: false, reason: `not allowed to create pods in namespace ${namespace}: ${message}`, fixHint: `grant the server's identity create/get/list/watch/delete on pods, create on pods/exec and networkpolicies, create/update on secrets (sandbox.registry) in namespace ${namespace}` };
    }
    if (error.code === 404) return { ok: false, reason: `namespace ${namespace} was not found at ${server}: ${message}`, fixHint: `create the namespace (kubectl create namespace ${namespace}) or set sandbox.orchestrator.namespace` };
    return { ok: false, reason: `the Kubernetes API server at ${server} answered ${error.code}: ${message}`, fixHint: 'check the cluster and sandbox.orchestrator settings' };
  }
  return {
    ok: false,
    reason: `the Kubernetes API server at ${server} is unreachable: ${(error as Error).message}`,
    fixHint: 'check that the cluster is up and that sandbox.orchestrator.kubeconfig (or the in-cluster service account) points at it',
  };
}

/** The API server's message from an error answer (its Status body), else the error's own. */
function apiMessage(error: unknown): string {
  if (error instanceof ApiException) {
    const body = typeof error.body === 'string' ? safeJson(error.body) : error.body;
    const message = (body as { message?: string } | undefined)?.message;
    return message ? `${message} (HTTP ${error.code})` : `HTTP ${error.code}`;
  }
  return (error as Error).message;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { message: text.slice(0, 300) };
  }
}
