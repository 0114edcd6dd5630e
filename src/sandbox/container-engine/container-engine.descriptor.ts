import { block, text } from '../../config/field-shapes.js';
import { LazyBackend } from '../lazy.backend.js';
import type { SandboxBackendDescriptor } from '../sandbox-backend-descriptor.js';
import { engineAddress } from './engine-address.js';

export const CONTAINER_ENGINE = 'container-engine';

/** `sandbox.engine`: the Docker Engine API's address (DOCKER_HOST wins). */
const ENGINE = block({ host: text() });

/** A container per sandbox on a Docker Engine API (Docker, Podman); dockerode is loaded on first use. */
export const containerEngineBackend: SandboxBackendDescriptor<typeof CONTAINER_ENGINE> = {
  name: CONTAINER_ENGINE,
  isolatesFromHost: true,
  settings: {
    keys: { engine: ENGINE },
    read(r, raw, where, sandbox) {
      if (raw.engine === undefined) return;
      const at = r.at(where, 'engine');
      const e = r.block(raw.engine, at, ENGINE);
      sandbox.engine = { host: r.field(ENGINE, e, at, 'host') };
    },
  },
  target: (sandbox, env) => engineAddress(env.DOCKER_HOST, sandbox.engine.host).host,
  create: (config, env, instanceId) => new LazyBackend(CONTAINER_ENGINE, async () => {
    const { ContainerEngineBackend } = await import('./container-engine.backend.js');
    return new ContainerEngineBackend(config.sandbox, { dockerHost: env.DOCKER_HOST, instanceId, scope: config.queue.key_prefix });
  }),
};
