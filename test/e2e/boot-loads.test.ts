import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageOf } from '../../scripts/package-of.mjs';
import { ROOT, type ServerProcess, embeddedDatabasePids, startServer, tempDir } from '../support/server-process.js';

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

/** Package names, or a prefix ending in `/` or `.` for a scope or a family of packages. */
const DEFERRED = [
  'chat', '@chat-adapter/', '@slack/', '@microsoft/teams.', '@googleapis/', 'google-auth-library', 'ai', '@ai-sdk/',
  '@kubernetes/client-node', 'dockerode', '@opentelemetry/sdk-node', 'jwks-rsa', '@nestjs/swagger', 'swagger-ui-dist',
];
const isDeferred = (name: string): boolean => DEFERRED.some((d) => (/[/.]$/.test(d) ? name.startsWith(d) : name === d));

/** `…/node_modules/@scope/name/…` → `@scope/name`; null outside node_modules. */
/**
 * The packages the loaded URLs hold: those loaded from node_modules, and those bundled into the
 * chunks of dist/ that loaded (dist/bundle-packages.json, written by scripts/bundle-server.mjs).
 */
function packagesLoaded(urls: string[]): { fromNodeModules: Set<string>; bundled: Set<string> } {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'dist', 'bundle-packages.json'), 'utf8')) as Record<string, string[]>;
  const fromNodeModules = new Set<string>();
  const bundled = new Set<string>();
  for (const url of urls) {
    const name = packageOf(url);
    if (name) fromNodeModules.add(name);
    const chunk = /\/dist\/([^/]+\.js)$/.exec(url)?.[1];
    for (const inChunk of chunk ? (manifest[chunk] ?? []) : []) bundled.add(inChunk);
  }
  return { fromNodeModules, bundled };
}

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
    const { fromNodeModules, bundled } = packagesLoaded(loaded);
    // The hook saw the server and its framework (so an empty list cannot pass).
    expect(loaded.some((url) => url.endsWith('/dist/start-server.js'))).toBe(true);
    expect(bundled.has('@nestjs/core')).toBe(true);
    expect(fromNodeModules.has('pg')).toBe(true); // an external package, loaded from node_modules
    expect([...fromNodeModules, ...bundled].filter(isDeferred)).toEqual([]);
  });

  it('loads no bundled package a second time from node_modules (two copies of Nest would each keep their own metadata)', () => {
    const { fromNodeModules, bundled } = packagesLoaded(readFileSync(loadedFile, 'utf8').split('\n').filter(Boolean));
    expect(bundled.size).toBeGreaterThan(50);
    expect([...fromNodeModules].filter((name) => bundled.has(name))).toEqual([]);
  });
});
