/** Where the Docker Engine API is, and which setting said so (for a probe's reason). */
export interface EngineAddress {
  host: string;
  source: 'DOCKER_HOST' | 'sandbox.engine.host' | 'default';
}

export const DEFAULT_ENGINE_HOST = 'unix:///var/run/docker.sock';

/**
 * DOCKER_HOST wins over `sandbox.engine.host` (contract), else the engine's default socket. Kept
 * apart from the client so the diagnostics can show the address without loading dockerode.
 */
export function engineAddress(dockerHost: string | undefined, configured: string | null): EngineAddress {
  if (dockerHost && dockerHost.trim() !== '') return { host: dockerHost.trim(), source: 'DOCKER_HOST' };
  if (configured) return { host: configured, source: 'sandbox.engine.host' };
  return { host: DEFAULT_ENGINE_HOST, source: 'default' };
}
