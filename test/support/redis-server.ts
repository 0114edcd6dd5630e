import { execFileSync } from 'node:child_process';

/** Why tests of the embedded store are skipped (no `redis-server` on PATH), or null when it is there. */
export const redisServerMissing: string | null = (() => {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return null;
  } catch {
    return 'redis-server is not on PATH (Debian: apt-get install redis-server)';
  }
})();
