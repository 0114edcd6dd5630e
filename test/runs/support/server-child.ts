import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import type { ServiceEnvironment } from '../../../src/config/environment.js';
import { eventually } from './run-test-setup.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const MAIN = join(HERE, '../../../src/main.ts');

/** A server instance as a real process (src/main.ts compiled on load), killable like a crashed replica. */
export interface ServerChild {
  pid: number;
  /** Prefix of the instance id it uses in the store: `<host>:<pid>:`. */
  instancePrefix: string;
  process: ChildProcess;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export async function startServerChild(env: ServiceEnvironment, redis: Redis, keyPrefix: string, logFile: string): Promise<ServerChild> {
  const child = spawn(process.execPath, [join(HERE, 'server-child.mjs'), MAIN], {
    env: { ...env.variables, NODE_NO_WARNINGS: '1' } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = createWriteStream(logFile, { flags: 'a' });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const pid = child.pid as number;
  const instancePrefix = `${hostname()}:${pid}:`;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  // Up when its consumer announced itself in the store (store and database both answered).
  await eventually(async () => {
    if (child.exitCode !== null) throw new Error(`server process exited with ${child.exitCode}; see ${logFile}`);
    const keys = await redis.keys(`${keyPrefix}consumer:${instancePrefix}*`);
    return keys.length > 0 ? true : undefined;
  }, 60_000, `server process ${pid} to start consuming (log: ${logFile})`);
  return {
    pid, instancePrefix, process: child,
    async kill(signal: NodeJS.Signals = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
