// The server's entry (`npm start`): turns on Node's compile cache, then starts the server.
//
// A separate entry because the cache must be on before the server's code is compiled, and a
// static import is compiled before the importing module runs. The cache holds V8's compiled code
// of the bundle, keyed by each file's content (a new build never reads an old entry), in the data
// directory the server owns: `<SERVICE_DATA_DIR>/compile-cache/build-<id>`. NODE_COMPILE_CACHE=<dir>
// (Node's own variable) puts it elsewhere, NODE_DISABLE_COMPILE_CACHE=1 turns it off; one that
// cannot be written costs nothing. Measured on `npm run bench:boot` (docs/operations.md#benchboot).
import { enableCompileCache } from 'node:module';
import { join } from 'node:path';
import { BUILD_ID } from './build-id.js';
import { readEnvironment } from './config/environment.js';

// Built only: run from source (a test's replica), the cache would hold each of the ~700 transformed
// modules and thousands of package modules, written all at once on the event loop 5 s after the
// start; the bundle's few files take about 13 ms. (environment.js, read for the data directory,
// and build-id.js are the modules compiled before the cache is on.) One directory per build of the
// bundle: start-server.ts removes the other builds' once this one's is written. Nothing here
// touches the file system or loads node:fs, which was measured to raise the idle server's RSS by
// 4-5 MB when done before the server starts.
if (import.meta.url.endsWith('.js')) enableCompileCache(join(readEnvironment().dataDir, 'compile-cache', `build-${BUILD_ID}`));
await import('./start-server.js');
