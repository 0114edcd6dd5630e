import { IN_PROCESS, InProcessBackend } from './in-process.backend.js';
import type { SandboxBackendDescriptor } from './sandbox-backend-descriptor.js';

/** Commands run as processes of the server's own host: no isolation, nothing to connect to. */
export const inProcessBackend: SandboxBackendDescriptor<typeof IN_PROCESS> = {
  name: IN_PROCESS,
  isolatesFromHost: false,
  target: () => null,
  create: (_config, env) => new InProcessBackend(env.PATH),
};
