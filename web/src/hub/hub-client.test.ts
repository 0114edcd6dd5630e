import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, type Socket } from 'socket.io';
import { afterEach, describe, expect, it } from 'vitest';
import type { Run, RunEvent } from '../api/types';
import { HubClient, type HubHandlers, type HubState } from './hub-client';

/** A real Socket.IO server at /hub/jobs that records what clients ask for. */
async function startHub(port = 0) {
  const http: HttpServer = createServer();
  const io = new Server(http, { path: '/hub/jobs' });
  const calls: string[] = [];
  const tokens: (string | undefined)[] = [];
  io.on('connection', (socket: Socket) => {
    tokens.push((socket.handshake.auth as { token?: string }).token);
    socket.on('runs.subscribe', () => { calls.push('runs.subscribe'); void socket.join('runs'); });
    socket.on('run.watch', (body: { runId: string }) => { calls.push(`run.watch ${body.runId}`); void socket.join(`run:${body.runId}`); });
    socket.on('run.unwatch', (body: { runId: string }) => { calls.push(`run.unwatch ${body.runId}`); void socket.leave(`run:${body.runId}`); });
  });
  await new Promise<void>((done) => http.listen(port, '127.0.0.1', done));
  return { io, http, calls, tokens, port: (http.address() as AddressInfo).port };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((done) => setTimeout(done, 25));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

function recorder() {
  const seen = { states: [] as HubState[], resyncs: [] as string[][], changed: [] as Run[], events: [] as [string, RunEvent][] };
  const handlers: HubHandlers = {
    runChanged: (run) => seen.changed.push(run),
    runEvent: (runId, event) => seen.events.push([runId, event]),
    resync: (watched) => seen.resyncs.push(watched),
    connection: (state) => seen.states.push(state),
  };
  return { seen, handlers };
}

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const done of cleanup.reverse()) await done();
  cleanup = [];
});

describe('the hub client', () => {
  it('sends a fresh token on every handshake and re-subscribes after a reconnect, asking for a resync', async () => {
    let hub = await startHub();
    const port = hub.port;
    let issued = 0;
    const { seen, handlers } = recorder();
    const client = new HubClient(async () => `token-${++issued}`, handlers, `http://127.0.0.1:${port}`);
    cleanup.push(async () => client.stop());
    const stopRuns = client.subscribeRuns();
    const stopWatch = client.watchRun('run-1');
    client.start();
    await until(() => hub.calls.includes('run.watch run-1') && hub.calls.includes('runs.subscribe'), 'the first subscriptions');
    expect(hub.tokens).toEqual(['token-1']);
    expect(seen.resyncs).toEqual([]);

    // Live delivery while connected.
    hub.io.to('run:run-1').emit('run.event', { run: 'run-1', seq: 1, at: 'x', kind: 'output', sandbox: null, text: 'hello' });
    await until(() => seen.events.length === 1, 'a live event');
    expect(seen.events[0]).toEqual(['run-1', { seq: 1, at: 'x', kind: 'output', sandbox: null, text: 'hello' }]);

    // The server goes away and comes back on the same port: the client reconnects by itself.
    hub.io.close();
    await until(() => seen.states.at(-1) === 'offline', 'the disconnect');
    hub = await startHub(port);
    cleanup.push(async () => { hub.io.close(); });
    await until(() => hub.calls.includes('run.watch run-1') && hub.calls.includes('runs.subscribe'), 'the subscriptions after reconnect');
    expect(hub.tokens[0]).toMatch(/^token-[2-9]/);
    await until(() => seen.resyncs.length === 1, 'the resync');
    expect(seen.resyncs[0]).toEqual(['run-1']);

    stopWatch();
    stopRuns();
    await until(() => hub.calls.includes('run.unwatch run-1'), 'the unwatch');
  });

  it('counts watchers: a run stays watched until its last watcher leaves', async () => {
    const hub = await startHub();
    cleanup.push(async () => { hub.io.close(); });
    const { handlers } = recorder();
    const client = new HubClient(async () => null, handlers, `http://127.0.0.1:${hub.port}`);
    cleanup.push(async () => client.stop());
    client.start();
    await until(() => hub.io.sockets.sockets.size === 1, 'the connection');
    const first = client.watchRun('run-2');
    const second = client.watchRun('run-2');
    await until(() => hub.calls.includes('run.watch run-2'), 'the watch');
    first();
    await new Promise((done) => setTimeout(done, 100));
    expect(hub.calls.filter((c) => c === 'run.watch run-2')).toHaveLength(1);
    expect(hub.calls).not.toContain('run.unwatch run-2');
    second();
    await until(() => hub.calls.includes('run.unwatch run-2'), 'the unwatch');
  });
});
