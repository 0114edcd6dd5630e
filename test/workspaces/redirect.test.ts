import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceError } from '../../src/workspaces/git/workspace-error.js';
import { WorkspaceFixture } from './workspace-fixture.js';

/** Answers everything with a 301 to `target`, recording whether a request carried credentials. */
function redirector(target: string): Promise<{ server: Server; url: string; authorizations: string[] }> {
  const authorizations: string[] = [];
  const server = createServer((req, res) => {
    if (req.headers.authorization) authorizations.push(req.headers.authorization);
    res.writeHead(301, { location: `${target}${req.url ?? ''}` }).end();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, authorizations })));
}

describe('a repository URL that redirects', () => {
  let fx: WorkspaceFixture;
  beforeEach(async () => {
    fx = await new WorkspaceFixture().start();
  });
  afterEach(() => fx.stop());

  it('is not followed: the credential never reaches the other host, and the error says the repository moved', async () => {
    const real = fx.repo().url; // the real remote, playing "the other host"
    const hop = await redirector(real.replace(/\/acme\/shop-web$/, ''));
    try {
      const repo = fx.repo({ url: `${hop.url}/acme/shop-web` });
      const error = await fx.workspaces.prepare(fx.source('7', { repo }), await fx.sandbox()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WorkspaceError);
      expect((error as WorkspaceError).kind).toBe('not-found');
      expect((error as Error).message).toMatch(/redirect means the repository moved/);
      expect(fx.backend.requests).toEqual([]); // the target saw nothing, credentials least of all
    } finally {
      hop.server.close();
    }
  });
});
