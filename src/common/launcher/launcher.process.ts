// The process launcher's own process (forked by ProcessLauncher; plain Node, no packages): it starts
// the server's commands so that the server never forks itself. A fork copies the page tables of the
// forking process's malloc'd memory (V8's heap is not copied: it is marked MADV_DONTFORK), and it
// blocks the forking thread: from a server holding 150 MB of such memory, each `git` or `sh` cost
// 12–22 ms of its event loop on the bench machine, against about 3 ms from this small process.
//
// Per command, the server sends { id, token, file, args, cwd, env, detached, streams } over IPC.
// For each stream the command gets a connection to the server's socket (argv[2]) that starts with
// the 33-byte preamble `<token><stream index>`, becomes the command's stdin, stdout or stderr, and
// is closed here once the command has it. Answers: { id, pid } once started, { id, error } when it
// could not be, { id, code, signal } when it exited.
import { spawn } from 'node:child_process';
import { type Socket, createConnection } from 'node:net';

export interface LaunchRequest {
  id: number;
  token: string;
  file: string;
  args: string[];
  cwd?: string;
  env: Record<string, string>;
  detached: boolean;
  /** Which of stdin, stdout, stderr are connected to the server; the others are /dev/null. */
  streams: [boolean, boolean, boolean];
}

export type LaunchAnswer =
  | { id: number; pid: number }
  | { id: number; error: string; code?: string }
  | { id: number; code: number | null; signal: NodeJS.Signals | null };

const socketPath = process.argv[2]!;

function connect(preamble: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(socketPath);
    socket.once('error', reject);
    socket.once('connect', () => socket.write(preamble, (error) => (error ? reject(error) : resolve(socket))));
  });
}

async function launch(request: LaunchRequest): Promise<void> {
  const answer = (message: LaunchAnswer) => process.send?.(message);
  let sockets: (Socket | null)[] = [];
  try {
    sockets = await Promise.all(request.streams.map((wanted, index) => (wanted ? connect(`${request.token}${index}`) : null)));
  } catch (error) {
    for (const socket of sockets) socket?.destroy();
    answer({ id: request.id, error: `the command's streams could not be connected: ${(error as Error).message}` });
    return;
  }
  const child = spawn(request.file, request.args, {
    cwd: request.cwd,
    env: request.env,
    detached: request.detached,
    stdio: sockets.map((socket) => socket ?? 'ignore'),
  });
  // The command holds its own copies: these must close, or the server would never see the end of a stream.
  for (const socket of sockets) socket?.destroy();
  child.once('error', (error: NodeJS.ErrnoException) => answer({ id: request.id, error: error.message, code: error.code }));
  child.once('spawn', () => answer({ id: request.id, pid: child.pid! }));
  child.once('exit', (code, signal) => answer({ id: request.id, code, signal }));
}

process.on('message', (request: LaunchRequest) => void launch(request));
// The server went away: nothing more will be asked. Commands still running keep running, as they
// would have if the server had started them itself.
process.on('disconnect', () => process.exit(0));
