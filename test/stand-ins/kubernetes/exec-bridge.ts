import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { Writable } from 'node:stream';
import type Docker from 'dockerode';
import { type WebSocket, WebSocketServer } from 'ws';
import { execStatus } from './api-status.js';

/** The channel protocols served, most preferred first (binary only; v1–v3 and base64 are not). */
export const EXEC_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'] as const;

const Channel = { Stdin: 0, Stdout: 1, Stderr: 2, Error: 3, Resize: 4, Close: 255 } as const;

export interface ExecRequest {
  command: string[];
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

/** The first protocol of ours the client offered (`Sec-WebSocket-Protocol`), or null. */
export function negotiate(header: string | undefined): string | null {
  const offered = (header ?? '').split(',').map((p) => p.trim());
  return EXEC_PROTOCOLS.find((p) => offered.includes(p)) ?? null;
}

/**
 * Bridges one exec subresource WebSocket to a `docker exec` in the pod's container, as the kubelet
 * does: every frame is a channel byte and data; an empty frame on the lowest output channel tells
 * the client the streams are up; stdin (0) goes to the process; with v5, a CLOSE frame (255, 0)
 * half-closes its stdin; when the process ends its exit goes out as a metav1.Status on channel 3
 * and the socket closes normally.
 */
export class ExecBridge {
  private readonly server = new WebSocketServer({ noServer: true, handleProtocols: (offered) => EXEC_PROTOCOLS.find((p) => offered.has(p)) ?? false });
  private readonly open = new Set<WebSocket>();

  constructor(private readonly docker: Docker) {}

  async serve(req: IncomingMessage, socket: Duplex, head: Buffer, containerId: string, request: ExecRequest): Promise<void> {
    const exec = await this.docker.getContainer(containerId).exec({
      Cmd: request.command,
      AttachStdin: request.stdin,
      AttachStdout: request.stdout,
      AttachStderr: request.stderr,
      Tty: request.tty,
    });
    const stream = await exec.start({ hijack: true, stdin: request.stdin });
    this.server.handleUpgrade(req, socket, head, (ws) => {
      this.open.add(ws);
      const v5 = ws.protocol === EXEC_PROTOCOLS[0];
      const send = (channel: number, data: Buffer) => {
        if (ws.readyState === ws.OPEN) ws.send(Buffer.concat([Buffer.from([channel]), data]));
      };
      send(request.stdout ? Channel.Stdout : request.stderr ? Channel.Stderr : Channel.Error, Buffer.alloc(0));
      const channelWriter = (channel: number) => new Writable({
        write(chunk: Buffer, _encoding, done) {
          send(channel, chunk);
          done();
        },
      });
      if (request.tty) stream.on('data', (chunk: Buffer) => send(Channel.Stdout, chunk));
      else this.docker.modem.demuxStream(stream, channelWriter(Channel.Stdout), channelWriter(Channel.Stderr));
      ws.on('message', (data: Buffer) => {
        const channel = data[0];
        if (channel === Channel.Stdin && request.stdin) stream.write(data.subarray(1));
        else if (channel === Channel.Close && v5 && data[1] === Channel.Stdin && request.stdin) stream.end();
      });
      ws.on('close', () => {
        this.open.delete(ws);
        stream.destroy();
      });
      let finished = false;
      const finish = async () => {
        if (finished) return;
        finished = true;
        const exitCode = await exitOf(exec);
        send(Channel.Error, Buffer.from(JSON.stringify(execStatus(exitCode))));
        ws.close(1000);
      };
      stream.on('end', () => void finish());
      stream.on('close', () => void finish());
    });
  }

  closeAll(): void {
    for (const ws of this.open) ws.terminate();
    this.server.close();
  }
}

/** The exec's exit code once Docker has it (it can lag the end of the output by a moment). */
async function exitOf(exec: Docker.Exec): Promise<number> {
  for (let i = 0; i < 100; i++) {
    const info = await exec.inspect().catch(() => null);
    if (info && !info.Running && info.ExitCode !== null) return info.ExitCode;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return 1;
}
