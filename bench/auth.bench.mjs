// npm run bench:auth — the permissions guard's added latency per request for a bearer token whose
// signing key is cached, beside the same route with enforcement off, measured in the same run.
//
// Runs the BUILT server (dist/, built first when missing) in this process: two applications from
// `createServer(env)` on one fresh, migrated PostgreSQL database, both pointed at an in-process
// minimal OpenID Connect authority (discovery document + JWKS; RS256 tokens signed with its key).
//
//   enforced   SERVICE_AUTH_ENFORCE=true,  Bearer token: signature (cached key), expiry, audience,
//              issuer, role resolution, observation note, permission check: the guard's full path
//   baseline   SERVICE_AUTH_ENFORCE=false, no token: the guard passes straight through
//   off+token  SERVICE_AUTH_ENFORCE=false, Bearer token: validated, nothing refused (for reference)
//
// Each request is `app.inject()` of GET /api/identity (no sockets: what is timed is Fastify +
// Nest + the guard + the handler). After a warm-up, BENCH_REQUESTS (default 20000) requests per
// series are timed one at a time, interleaved in batches so drift hits all series alike. Prints
// p50/p90/p99 per series and the enforced − baseline difference; target: p50 difference < 0.2 ms.
//
// DATABASE_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres); the database is dropped afterwards.
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ADMIN_URL, admin } from './bench-support.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3_000);
const BATCH = 500;
const TARGET_P50_MS = 0.2;
const AUDIENCE = 'pipeline-service';

if (!existsSync(join(ROOT, 'dist/server.js'))) {
  console.log('building dist/ …');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
}
const dist = (path) => import(pathToFileURL(join(ROOT, 'dist', path)).href);
const { createServer } = await dist('server.js');
const { readEnvironment } = await dist('config/environment.js');
const { migrate } = await dist('cli/migrate.command.js');

// ---------------------------------------------------------------- minimal OIDC authority
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const KID = 'bench-key';
const jwk = { ...privateKey.export({ format: 'jwk' }), kid: KID, alg: 'RS256', use: 'sig' };
const publicJwk = { kty: jwk.kty, n: jwk.n, e: jwk.e, kid: KID, alg: 'RS256', use: 'sig' };
let jwksRequests = 0;
const idp = createHttpServer((req, res) => {
  const base = `http://127.0.0.1:${idp.address().port}`;
  const path = (req.url ?? '/').split('?')[0];
  if (path === '/.well-known/openid-configuration') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ issuer: base, jwks_uri: `${base}/jwks`, id_token_signing_alg_values_supported: ['RS256'] }));
  } else if (path === '/jwks') {
    jwksRequests += 1;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [publicJwk] }));
  } else {
    res.writeHead(404).end();
  }
});
await new Promise((resolve) => idp.listen(0, '127.0.0.1', resolve));
const authority = `http://127.0.0.1:${idp.address().port}`;

function mint(claims) {
  const now = Math.floor(Date.now() / 1000);
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const input = `${b64({ alg: 'RS256', typ: 'JWT', kid: KID })}.${b64({ iss: authority, aud: AUDIENCE, sub: 'bench-user', iat: now, nbf: now, exp: now + 3600, ...claims })}`;
  return `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
}

// ---------------------------------------------------------------- database and servers
const dbName = `bench_auth_${randomBytes(4).toString('hex')}`;
const dbUrl = new URL(ADMIN_URL);
dbUrl.pathname = `/${dbName}`;
const dir = mkdtempSync(join(tmpdir(), 'bench-auth-'));
const environment = (enforce) => readEnvironment({
  PATH: process.env.PATH,
  SERVICE_CONFIG: join(dir, 'absent.yml'),
  SERVICE_DATA_DIR: dir,
  DATABASE_URL: dbUrl.toString(),
  LOG_LEVEL: 'silent',
  SERVICE_AUTH_AUTHORITY: authority,
  SERVICE_AUTH_AUDIENCE: AUDIENCE,
  SERVICE_AUTH_ENFORCE: String(enforce),
});

const apps = [];
async function boot(enforce) {
  const app = await createServer(environment(enforce));
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  apps.push(app);
  return app;
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
const fmt = (ms) => `${ms.toFixed(3)} ms`;

try {
  await admin(`CREATE DATABASE ${dbName}`);
  await migrate(environment(false));
  const [on, off] = [await boot(true), await boot(false)];
  const token = mint({ roles: ['reader'], groups: ['/bench-group'] });
  const series = [
    { name: 'enforced', app: on, headers: { authorization: `Bearer ${token}` }, status: 200, times: [] },
    { name: 'baseline', app: off, headers: {}, status: 200, times: [] },
    { name: 'off+token', app: off, headers: { authorization: `Bearer ${token}` }, status: 200, times: [] },
  ];

  // Sanity: the enforced series really is validated, resolved and authorised; the key gets cached.
  const check = await on.inject({ method: 'GET', url: '/api/identity', headers: series[0].headers });
  const body = check.json();
  if (check.statusCode !== 200 || body.authenticated !== true || body.roles?.[0] !== 'reader') {
    throw new Error(`enforced request not accepted: ${check.statusCode} ${check.body}`);
  }
  const refused = await on.inject({ method: 'GET', url: '/api/identity' });
  if (refused.statusCode !== 401) throw new Error(`enforcement is not on: ${refused.statusCode}`);

  const once = async (s) => {
    const start = process.hrtime.bigint();
    const res = await s.app.inject({ method: 'GET', url: '/api/identity', headers: s.headers });
    const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
    if (res.statusCode !== s.status) throw new Error(`${s.name}: HTTP ${res.statusCode} ${res.body}`);
    return elapsed;
  };
  for (let i = 0; i < WARMUP; i++) for (const s of series) await once(s);
  const jwksBefore = jwksRequests;

  for (let done = 0; done < REQUESTS; done += BATCH) {
    const n = Math.min(BATCH, REQUESTS - done);
    for (const s of series) for (let i = 0; i < n; i++) s.times.push(await once(s));
  }

  console.log(`GET /api/identity via app.inject(), ${REQUESTS} timed requests per series after ${WARMUP} warm-up (built code, dist/)`);
  console.log(`${'series'.padEnd(10)} ${'p50'.padStart(10)} ${'p90'.padStart(10)} ${'p99'.padStart(10)} ${'mean'.padStart(10)}`);
  const stats = {};
  for (const s of series) {
    const sorted = [...s.times].sort((a, b) => a - b);
    const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
    stats[s.name] = { p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99), mean };
    const st = stats[s.name];
    console.log(`${s.name.padEnd(10)} ${fmt(st.p50).padStart(10)} ${fmt(st.p90).padStart(10)} ${fmt(st.p99).padStart(10)} ${fmt(st.mean).padStart(10)}`);
  }
  const { enforced, baseline } = stats;
  const added = {
    p50: enforced.p50 - baseline.p50, p90: enforced.p90 - baseline.p90, p99: enforced.p99 - baseline.p99, mean: enforced.mean - baseline.mean,
  };
  console.log(`${'added'.padEnd(10)} ${fmt(added.p50).padStart(10)} ${fmt(added.p90).padStart(10)} ${fmt(added.p99).padStart(10)} ${fmt(added.mean).padStart(10)}   (enforced − baseline)`);
  console.log(`JWKS fetches during the timed run: ${jwksRequests - jwksBefore} (the key stays cached)`);
  const pass = added.p50 < TARGET_P50_MS;
  console.log(`guard added latency p50 ${fmt(added.p50)} — target < ${TARGET_P50_MS} ms: ${pass ? 'PASS' : 'FAIL'}`);
  process.exitCode = pass ? 0 : 1;
} finally {
  for (const app of apps) await app.close().catch(() => undefined);
  await new Promise((resolve) => idp.close(resolve));
  await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
}
