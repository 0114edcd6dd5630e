import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RepositoryWorkspaces } from '../../src/workspaces/git/repository-workspaces.js';
import { WorkspaceError } from '../../src/workspaces/git/workspace-error.js';
import { TOKEN, WorkspaceFixture } from './workspace-fixture.js';

const WRONG = 'ghp_WrongTokenValue9876543210';
const AUTHOR = { authorName: 'pipeline-service', authorEmail: 'pipeline-service@users.noreply.localhost' };

/** Every form of `token` a git error could carry: plain, the Basic pair, its base64. */
function formsOf(token: string): string[] {
  return [token, Buffer.from(`x-access-token:${token}`).toString('base64'), Buffer.from(`x-access-token:${token}`).toString('base64').slice(0, 24)];
}

function expectNoToken(text: string, token: string): void {
  for (const form of formsOf(token)) expect(text).not.toContain(form);
}

function everythingOf(error: unknown): string {
  const e = error as Error;
  return `${e.message}\n${e.stack}\n${JSON.stringify(e)}\n${String(e)}`;
}

/** Every regular file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((p) => join(dir, p)).filter((p) => statSync(p, { throwIfNoEntry: false })?.isFile());
}

/** A TCP server that accepts connections and never answers. */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** pid → argv of every process this user can see. */
function processArgv(): Map<number, string[]> {
  const found = new Map<number, string[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      found.set(Number(entry), readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

describe('git failures against git http-backend', () => {
  let fx: WorkspaceFixture;

  beforeEach(async () => {
    fx = await new WorkspaceFixture().start();
  });
  afterEach(() => fx.stop());

  it('answers credentials for a wrong token, and its value appears in no error', async () => {
    const error = await fx.workspaces.prepare(fx.source('42', { credential: { username: 'x-access-token', password: WRONG } }), await fx.sandbox()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkspaceError);
    expect(error).toMatchObject({ kind: 'credentials' });
    expect((error as Error).message).toContain('shop-web');
    expect((error as Error).message).toContain('auth_secret');
    expectNoToken(everythingOf(error), WRONG);
    expect(fx.backend.authFailures).toBeGreaterThan(0);
  });

  it('answers credentials when the host stops accepting the token before the push', async () => {
    const sandbox = await fx.sandbox();
    const prepared = await fx.workspaces.prepare(fx.source(), sandbox);
    writeFileSync(join(sandbox.dir, 'README.md'), 'changed\n');
    const change = await fx.workspaces.collect(prepared, sandbox);
    await fx.workspaces.commit(change!, { message: 'x', ...AUTHOR });
    fx.backend.options.credential.password = 'rotated-elsewhere';
    const error = await fx.workspaces.push(change!).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'credentials' });
    expectNoToken(everythingOf(error), TOKEN);
  });

  it('answers unreachable for a port nobody listens on', async () => {
    const { port, close } = await silentServer();
    await close();
    const source = fx.source('42', { repo: fx.repo({ url: `http://127.0.0.1:${port}/acme/shop-web` }) });
    const error = await fx.workspaces.prepare(source, await fx.sandbox()).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'unreachable' });
    expect((error as Error).message).toContain('shop-web');
    expectNoToken(everythingOf(error), TOKEN);
  });

  it('refuses a url that carries credentials, without repeating them', async () => {
    const source = fx.source('42', { repo: fx.repo({ url: `http://x-access-token:${WRONG}@127.0.0.1:1/acme/shop-web` }) });
    const error = await fx.workspaces.prepare(source, await fx.sandbox()).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'credentials' });
    expect((error as Error).message).toMatch(/remove the "user@" part/);
    expectNoToken(everythingOf(error), WRONG);
  });

  it('never puts the credential on any argv (while git waits on a silent server), and times out as unreachable', async () => {
    const silent = await silentServer();
    try {
      const workspaces = new RepositoryWorkspaces({
        dataDir: join(fx.root, 'silent-data'),
        networkTimeoutMs: 4000,
      });
      const url = `http://127.0.0.1:${silent.port}/acme/shop-web`;
      const pending = workspaces.prepare(fx.source('42', { repo: fx.repo({ url }) }), await fx.sandbox()).catch((e: unknown) => e);
      // Wait until git and its http helper are both running against the silent server. The helper
      // is started through a `git remote-http` wrapper, whose forked child carries the wrapper's
      // argv until it execs git-remote-http: wait for the helper itself, not for a count.
      let gitProcesses: [number, string[]][] = [];
      const helperRunning = () => gitProcesses.some(([, argv]) => /remote-http/.test(argv[0] ?? ''));
      for (let i = 0; i < 150 && !helperRunning(); i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        gitProcesses = [...processArgv()].filter(([, argv]) => argv.some((arg) => arg.includes(`:${silent.port}/`)));
      }
      expect(gitProcesses.map(([, argv]) => argv[0])).toEqual(expect.arrayContaining(['git', expect.stringMatching(/remote-http/)]));
      for (const [, argv] of processArgv()) expectNoToken(argv.join(' '), TOKEN);
      // The credential is there, in the environment of git only (readable by this user alone).
      const environ = readFileSync(`/proc/${gitProcesses[0]![0]}/environ`, 'utf8');
      expect(environ).toContain(`Authorization: Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`);
      expect(environ).not.toMatch(/GIT_CONFIG_PARAMETERS/);

      const error = await pending;
      expect(error).toMatchObject({ kind: 'unreachable' });
      expectNoToken(everythingOf(error), TOKEN);
    } finally {
      await silent.close();
    }
  });

  it('leaves the credential in no file of the data directory (mirror and scratch configs included)', async () => {
    const sandbox = await fx.sandbox();
    const prepared = await fx.workspaces.prepare(fx.source(), sandbox);
    writeFileSync(join(sandbox.dir, 'README.md'), 'changed\n');
    const change = await fx.workspaces.collect(prepared, sandbox);
    await fx.workspaces.commit(change!, { message: 'x', ...AUTHOR });
    await fx.workspaces.push(change!);
    const files = filesUnder(fx.dataDir);
    const configs = files.filter((f) => f.endsWith('/config'));
    expect(configs.some((f) => f.includes('git-mirrors'))).toBe(true);
    expect(configs.some((f) => f.includes('workspaces'))).toBe(true);
    for (const file of files) expectNoToken(readFileSync(file, 'latin1'), TOKEN);
    for (const file of configs) expect(readFileSync(file, 'utf8')).not.toMatch(/url\s*=|extraheader|credential/i);
    await fx.workspaces.release(change!);
  });

  it('serializes concurrent cold syncs of one mirror: one clone, both prepared', async () => {
    const [a, b] = await Promise.all([fx.workspaces.prepare(fx.source('1'), await fx.sandbox()), fx.workspaces.prepare(fx.source('2'), await fx.sandbox())]);
    expect(a.commit).toBe(fx.initialCommit);
    expect(b.commit).toBe(fx.initialCommit);
    expect(readdirSync(join(fx.dataDir, 'git-mirrors')).filter((name) => name.endsWith('.git'))).toHaveLength(1);
    // A clone is ls-refs + fetch; the second sync found the mirror made and only listed refs.
    expect(fx.backend.posts('git-upload-pack')).toHaveLength(3);
  });
});
