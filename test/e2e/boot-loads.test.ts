import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, embeddedDatabasePids, startServer, tempDir } from '../support/server-process.js';

/**
 * Issue 31: what a configuration does not use is not loaded at boot. The built server, with no
 * `chat:`, no model, no sandbox backend, no OTLP endpoint, no `auth:` authority and nobody asking
 * for the OpenAPI document, runs with a module hook that appends every module URL it loads to a
 * file; once /health has answered, none of the deferred packages may be in it.
 */
const data = tempDir('e2e-boot-loads');
const loadedFile = join(data.dir, 'loaded.txt');
const hookFile = join(data.dir, 'hook.mjs');
let server: ServerProcess;

const DEFERRED = [
  '/node_modules/chat/', '/node_modules/@chat-adapter/', '/node_modules/@slack/', '/node_modules/@microsoft/teams',
  '/node_modules/@googleapis/', '/node_modules/google-auth-library/', '/node_modules/ai/', '/node_modules/@ai-sdk/',
  '/node_modules/@kubernetes/client-node/', '/node_modules/dockerode/', '/node_modules/@opentelemetry/sdk-node/',
  '/node_modules/jwks-rsa/', '/node_modules/@nestjs/swagger/', '/node_modules/swagger-ui-dist/',
];

beforeAll(async () => {
  writeFileSync(hookFile, `
import { registerHooks } from 'node:module';
import { appendFileSync } from 'node:fs';
registerHooks({ load(url, context, next) { appendFileSync(${JSON.stringify(loadedFile)}, url + '\\n'); return next(url, context); } });
`);
  writeFileSync(loadedFile, '');
  server = await startServer({
    SERVICE_CONFIG: join(data.dir, 'absent', 'service.yml'), SERVICE_DATA_DIR: data.dir,
    NODE_OPTIONS: `--import=${pathToFileURL(hookFile).href}`,
  });
});

afterAll(async () => {
  await server?.stop();
  for (const pid of await embeddedDatabasePids(data.dir)) process.kill(pid, 'SIGKILL');
  data.remove();
});

describe('boot loads only what the configuration uses', () => {
  it('answers /health without loading the chat, model, sandbox-backend, tracing SDK or OpenAPI packages', () => {
    expect(server.firstHealth?.ms).toBeGreaterThan(0); // /health answered 200
    const loaded = readFileSync(loadedFile, 'utf8').split('\n').filter(Boolean);
    // The hook saw the server's own modules and its framework (so an empty list cannot pass).
    expect(loaded.some((url) => url.includes('/dist/main.js'))).toBe(true);
    expect(loaded.some((url) => url.includes('/node_modules/@nestjs/core/'))).toBe(true);
    const deferred = loaded.filter((url) => DEFERRED.some((part) => url.includes(part)));
    expect(deferred).toEqual([]);
  });
});
