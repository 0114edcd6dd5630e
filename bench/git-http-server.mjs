// A git smart-HTTP server for benches: the real `git http-backend` run as CGI for one bare
// repository, behind HTTP Basic auth, fetch and push enabled, bodies streamed. (The tests use the
// TypeScript stand-in in test/stand-ins/git-http-backend.ts; benches run plain JS.)
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { basename, dirname } from 'node:path';

const BACKEND = '/usr/lib/git-core/git-http-backend';
const ENDPOINT = /^(?:\.git)?(\/info\/refs|\/git-upload-pack|\/git-receive-pack)$/;

/** Serves `repository` at `${url}${mountPath}`; answers { url, stop }. */
export async function startGitHttpServer({ repository, mountPath, username, password }) {
  const expected = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  const sockets = new Set();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://git');
    const endpoint = url.pathname.startsWith(mountPath) ? ENDPOINT.exec(url.pathname.slice(mountPath.length))?.[1] : null;
    if (!endpoint) return void res.writeHead(404).end();
    if (req.headers.authorization !== expected) {
      req.resume();
      return void res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end();
    }
    const env = {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: dirname(repository),
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'http.receivepack',
      GIT_CONFIG_VALUE_0: 'true',
      GIT_PROJECT_ROOT: dirname(repository),
      GIT_HTTP_EXPORT_ALL: '1',
      GIT_HTTP_MAX_REQUEST_BUFFER: '1000M',
      PATH_INFO: `/${basename(repository)}${endpoint}`,
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: req.method,
      REMOTE_USER: username,
      REMOTE_ADDR: '127.0.0.1',
      CONTENT_TYPE: req.headers['content-type'] ?? '',
    };
    if (req.headers['content-length'] !== undefined) env.CONTENT_LENGTH = req.headers['content-length'];
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string' && name !== 'authorization') env[`HTTP_${name.toUpperCase().replace(/-/g, '_')}`] = value;
    }
    const cgi = spawn(BACKEND, [], { env, stdio: ['pipe', 'pipe', 'inherit'] });
    req.pipe(cgi.stdin);
    cgi.stdin.on('error', () => undefined);
    let head = Buffer.alloc(0);
    let started = false;
    cgi.stdout.on('data', (chunk) => {
      if (started) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      started = true;
      const headers = {};
      let status = 200;
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const sep = line.indexOf(':');
        const [name, value] = [line.slice(0, sep).trim(), line.slice(sep + 1).trim()];
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else headers[name] = value;
      }
      res.writeHead(status, headers);
      res.write(head.subarray(end + 4));
    });
    cgi.on('close', () => (started ? res.end() : res.writeHead(500).end()));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}${mountPath}`,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
