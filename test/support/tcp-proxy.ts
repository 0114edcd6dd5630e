import net from 'node:net';

/** A TCP forwarder (to PostgreSQL, Redis, …) that a test can cut and restore: an outage without stopping the real server. */
export interface TcpProxy {
  port: number;
  /** Stops listening and cuts every open connection (clients see resets, new connects are refused). */
  cut(): Promise<void>;
  /** Listens again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  let server: net.Server | null = null;
  const listen = (port: number): Promise<number> => new Promise((done, fail) => {
    server = net.createServer((client) => {
      const upstream = net.connect(target.port, target.host);
      track(client);
      track(upstream);
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => done((server!.address() as net.AddressInfo).port));
  });
  const cut = async (): Promise<void> => {
    const closing = server;
    server = null;
    if (!closing) return;
    const closed = new Promise((done) => closing.close(done));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  const port = await listen(0);
  return { port, cut, restore: async () => void (await listen(port)), close: cut };
}
