import Docker from 'dockerode';
import type { EngineAddress } from './engine-address.js';

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
