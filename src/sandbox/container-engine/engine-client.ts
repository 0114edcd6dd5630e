import Docker from 'dockerode';

/** Where the Docker Engine API is, and which setting said so (for a probe's reason). */
export interface EngineAddress {
  host: string;
  source: 'DOCKER_HOST' | 'sandbox.engine.host' | 'default';
}

export const DEFAULT_ENGINE_HOST = 'unix:///var/run/docker.sock';

/** DOCKER_HOST wins over `sandbox.engine.host` (contract), else the engine's default socket. */
export function engineAddress(dockerHost: string | undefined, configured: string | null): EngineAddress {
  if (dockerHost && dockerHost.trim() !== '') return { host: dockerHost.trim(), source: 'DOCKER_HOST' };
  if (configured) return { host: configured, source: 'sandbox.engine.host' };
  return { host: DEFAULT_ENGINE_HOST, source: 'default' };
}

/**
 * A client for `unix://` sockets (Docker's, or Podman's compatible one) and `tcp://` / `http(s)://`
 * endpoints. Options are always explicit, so docker-modem never reads the ambient environment.
 */
export function engineClient(address: EngineAddress): Docker {
  const host = address.host;
  if (host.startsWith('unix://')) return new Docker({ socketPath: host.slice('unix://'.length) });
  if (host.startsWith('/')) return new Docker({ socketPath: host });
  const url = new URL(host.replace(/^tcp:\/\//, 'http://'));
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`container engine address ${host} (${address.source}) is not unix://, tcp:// or http(s)://`);
  }
  const port = url.port || (url.protocol === 'https:' ? '2376' : '2375');
  return new Docker({ host: url.hostname, port, protocol: url.protocol.slice(0, -1) as 'http' | 'https' });
}
