import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type Docker from 'dockerode';
import type { SandboxConfig } from '../../config/service-config.js';
import { type BackendVersion, type ProbeResult, type Sandbox, type SandboxBackend, SandboxLabel, type SandboxSpec } from '../sandbox-backend.js';
import { CONTAINER_WORKDIR, SCOPE_LABEL, containerOptions, sandboxUser } from './container-options.js';
import { ContainerEngineSandbox, removeContainer } from './container-engine.sandbox.js';
import { CONTAINER_ENGINE } from './container-engine.descriptor.js';
import { type EngineAddress, engineAddress } from './engine-address.js';
import { engineClient } from './engine-client.js';
import { ImagePuller } from './image-puller.js';
import { sandboxDirectories, unsetNames } from './sandbox-layout.js';

const PROBE_TIMEOUT_MS = 8000;

export interface ContainerEngineOptions {
  /** The DOCKER_HOST variable of the server's environment: it wins over `sandbox.engine.host`. */
  dockerHost?: string;
  /** Who creates the containers (their `pipeline-service/instance` label); a random id when unset. */
  instanceId?: string;
  /**
   * The deployment (the store's key prefix): containers carry it and the sweep removes only
   * containers carrying it. Unset: containers carry none and the sweep considers every labelled one.
   */
  scope?: string;
}

/**
 * Sandboxes as containers of a Docker Engine API (Docker, or Podman's compatible socket): one
 * container per sandbox, made from the context's image or `sandbox.image` (pulled when missing),
 * limited and locked down as `containerOptions` says, removed on destroy or by the housekeeping
 * leader's sweep once its run is no longer live.
 */
export class ContainerEngineBackend implements SandboxBackend {
  readonly kind = CONTAINER_ENGINE;
  readonly address: EngineAddress;
  readonly instanceId: string;
  private readonly scope: string | null;
  private readonly docker: Docker | null;
  private readonly clientError: Error | null = null;
  private readonly images: ImagePuller | null;

  constructor(private readonly config: SandboxConfig, options: ContainerEngineOptions = {}) {
    this.address = engineAddress(options.dockerHost, config.engine.host);
    this.instanceId = options.instanceId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.scope = options.scope ?? null;
    let docker: Docker | null = null;
    try {
      docker = engineClient(this.address);
    } catch (error) {
      this.clientError = error as Error;
    }
    this.docker = docker;
    this.images = docker ? new ImagePuller(docker, config.registry) : null;
  }

  /** The engine's version, and whether a container can be made from `sandbox.image`; never throws. */
  async probe(): Promise<ProbeResult> {
    const where = `${this.address.host} (${this.address.source === 'default' ? 'the default socket; set DOCKER_HOST or sandbox.engine.host' : this.address.source})`;
    const fixHint = 'start the container engine, or point DOCKER_HOST or sandbox.engine.host at its socket';
    if (!this.docker || !this.images) return { ok: false, reason: `container engine address is unusable: ${this.clientError?.message}`, fixHint };
    let engine: string;
    try {
      const version = await withTimeout(this.docker.version(), PROBE_TIMEOUT_MS / 2, 'no answer');
      engine = `${version.Components?.[0]?.Name ?? 'container engine'} ${version.Version} (API ${version.ApiVersion}) at ${this.address.host}`;
    } catch (error) {
      return { ok: false, reason: `container engine at ${where} is unreachable: ${oneLine(error)}`, fixHint };
    }
    const image = this.config.image;
    try {
      if (!(await withTimeout(this.images.local(image), PROBE_TIMEOUT_MS / 4, 'no answer'))) {
        return { ok: true, detail: `${engine}; sandbox image ${image} is not present and will be pulled on first use` };
      }
      await withTimeout(this.tryCreate(image), PROBE_TIMEOUT_MS / 4, 'no answer');
      return { ok: true, detail: `${engine}; can create sandbox containers from ${image}` };
    } catch (error) {
      return { ok: false, reason: `container engine ${engine} cannot create a sandbox container from ${image}: ${oneLine(error)}`, fixHint: 'check the engine (docker info) and sandbox.image, cpu, memory and user' };
    }
  }

  /** `GET /version` of the engine. */
  async version(): Promise<BackendVersion> {
    if (!this.docker) throw this.clientError ?? new Error('no container engine');
    const version = await this.docker.version();
    return { version: `${version.Components?.[0]?.Name ?? 'container engine'} ${version.Version} (API ${version.ApiVersion})`, target: this.address.host };
  }

  async create(spec: SandboxSpec): Promise<Sandbox> {
    if (!this.docker || !this.images) throw this.clientError ?? new Error('no container engine');
    const image = spec.image ?? this.config.image;
    const inspected = await this.images.ensure(image);
    const imageEnv = inspected.Config?.Env ?? [];
    const imagePath = imageEnv.find((e) => e.startsWith('PATH='))?.slice(5) ?? null;
    const container = await this.docker.createContainer(containerOptions(this.config, spec, image, imagePath, this.instanceId, this.scope));
    try {
      // The working directory and HOME owned by the sandbox user (and a /tmp), before anything runs.
      await container.putArchive(sandboxDirectories(sandboxUser(this.config.user)), { path: '/' });
      await container.start();
    } catch (error) {
      await removeContainer(container).catch(() => undefined);
      throw error;
    }
    return new ContainerEngineSandbox(spec.name, {
      docker: this.docker, container, user: this.config.user, workdir: CONTAINER_WORKDIR,
      unset: unsetNames(imageEnv, spec.env),
    });
  }

  /** Removes every labelled container of this deployment (any state, any instance) whose run is no longer live. */
  async sweep(isLive: (runId: string) => Promise<boolean>): Promise<number> {
    if (!this.docker) return 0;
    const label = this.scope === null ? [SandboxLabel.RunId] : [SandboxLabel.RunId, `${SCOPE_LABEL}=${this.scope}`];
    const containers = await this.docker.listContainers({ all: true, filters: { label } });
    const live = new Map<string, boolean>();
    let removed = 0;
    for (const info of containers) {
      const runId = info.Labels[SandboxLabel.RunId] ?? '';
      if (!live.has(runId)) live.set(runId, await isLive(runId));
      if (live.get(runId)) continue;
      await removeContainer(this.docker.getContainer(info.Id));
      removed++;
    }
    return removed;
  }

  /** Creates (never starts) and removes a container as a sandbox would be made. */
  private async tryCreate(image: string): Promise<void> {
    const options = containerOptions(this.config, { runId: 'probe', name: 'probe', env: {} }, image, null, this.instanceId, this.scope);
    const container = await this.docker!.createContainer(options);
    await removeContainer(container);
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, fail) => (timer = setTimeout(() => fail(new Error(`${what} within ${ms} ms`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function oneLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
}
