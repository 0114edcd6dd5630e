import { flushCompileCache, getCompileCacheDir } from 'node:module';
import { dirname, resolve } from 'node:path';
import { pruneOtherBuilds } from './common/compile-cache.js';
import { readEnvironment } from './config/environment.js';
import { createServer } from './server.js';
import { startTracing } from './tracing/start-tracing.js';

const env = readEnvironment();
// Before the application is built, so that its spans have a provider (TracingShutdown flushes them).
await startTracing(env);
const app = await createServer(env);
try {
  await app.listen(env.port, env.host);
} catch (error) {
  // The one failure the server cannot serve around: nowhere to listen.
  console.error(`pipeline-service cannot listen on ${env.host}:${env.port}: ${(error as Error).message}`);
  await app.close();
  process.exit(1);
}
// The compile cache main.ts turned on is written once the server has started, not at exit (Node's
// default), so that a stop stays quick; code loaded later is added at exit.
setTimeout(() => {
  flushCompileCache();
  // Only in the data directory's own cache (main.ts's), never in a NODE_COMPILE_CACHE of the operator's.
  const written = getCompileCacheDir();
  const build = written === undefined ? undefined : dirname(written);
  if (build && dirname(build) === resolve(env.dataDir, 'compile-cache')) void pruneOtherBuilds(build);
}, 5_000).unref();
