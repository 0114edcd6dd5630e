import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The one place that reads `process.env`. Everything else receives a `ServiceEnvironment`, so
 * tests and the CLI can pass their own and nothing depends on ambient state.
 */
export interface ServiceEnvironment {
  port: number;
  host: string;
  configPath: string;
  databaseUrl: string | null;
  dataDir: string;
  /** The store's address: a redis URL, or the embedded store's unix socket path. */
  kvstoreUrl: string | null;
  /** KVSTORE_URL=embedded: the redis-server child the server runs itself (see embedded-store.ts). */
  embeddedStore: EmbeddedStoreEnvironment | null;
  logLevel: string;
  /** LOG_FORMAT: `pretty` lines for a terminal, `json` lines otherwise (default: by whether stdout is a terminal). */
  logFormat: 'pretty' | 'json';
  /** OTEL_EXPORTER_OTLP_ENDPOINT: traces are exported over OTLP/HTTP there; unset → no tracing. */
  otlpEndpoint: string | null;
  adminGrant: string | null;
  /** SERVICE_SECRETS_KEY as given (32 bytes, base64): the key stored secrets are encrypted under. See secrets-key.ts. */
  secretsKey: string | null;
  /** SERVICE_AUTH_* values present in the environment (field → value). */
  auth: Partial<Record<AuthEnvField, string>>;
  webhookSecrets: {
    platform_a_secret: string | null;
    platform_b_secret: string | null;
    platform_c_secret: string | null;
    platform_d_secret: string | null;
  };
  /** The raw variables, for `${NAME}` references in the bootstrap file. */
  variables: Readonly<Record<string, string | undefined>>;
}

export interface EmbeddedStoreEnvironment {
  /** SERVICE_REDIS_SERVER, else `redis-server` looked up on PATH. */
  server: string;
  /** Its working directory (append-only file, pid file): `<SERVICE_DATA_DIR>/store`. */
  dir: string;
  /** The only address it listens on. */
  socket: string;
}

/** KVSTORE_URL's value that asks for the embedded store. */
export const EMBEDDED_STORE = 'embedded';
/** Unix socket paths longer than this do not fit `sun_path` (108 bytes with its NUL) on Linux. */
const MAX_SOCKET_PATH = 100;

export const AUTH_ENV_VARIABLES = {
  authority: 'SERVICE_AUTH_AUTHORITY',
  audience: 'SERVICE_AUTH_AUDIENCE',
  enforce: 'SERVICE_AUTH_ENFORCE',
  role_claim: 'SERVICE_AUTH_ROLE_CLAIM',
  group_claim: 'SERVICE_AUTH_GROUP_CLAIM',
  name_claim: 'SERVICE_AUTH_NAME_CLAIM',
  client_id: 'SERVICE_AUTH_CLIENT_ID',
  scopes: 'SERVICE_AUTH_SCOPES',
  redirect_path: 'SERVICE_AUTH_REDIRECT_PATH',
} as const;
export type AuthEnvField = keyof typeof AUTH_ENV_VARIABLES;

const DEFAULT_PORT = 8081;

function nonEmpty(value: string | undefined): string | null {
  return value === undefined || value.trim() === '' ? null : value;
}

/** `stdoutIsTerminal` picks the default LOG_FORMAT (pretty lines for a person, JSON for a machine). */
export function readEnvironment(env: Readonly<Record<string, string | undefined>> = process.env, stdoutIsTerminal = Boolean(process.stdout.isTTY)): ServiceEnvironment {
  const auth: Partial<Record<AuthEnvField, string>> = {};
  for (const [field, name] of Object.entries(AUTH_ENV_VARIABLES) as [AuthEnvField, string][]) {
    const value = nonEmpty(env[name]);
    if (value !== null) auth[field] = value;
  }
  const port = Number.parseInt(env.PORT ?? '', 10);
  const dataDir = nonEmpty(env.SERVICE_DATA_DIR) ?? './data';
  const kvstore = nonEmpty(env.KVSTORE_URL);
  const embeddedStore = kvstore?.trim().toLowerCase() === EMBEDDED_STORE ? embeddedStoreOf(dataDir, nonEmpty(env.SERVICE_REDIS_SERVER)) : null;
  // Contract: PLATFORM_B_WEBHOOK_TOKEN is also read as PLATFORM_B_WEBHOOK_SECRET, including where
  // the bootstrap file references it as `${PLATFORM_B_WEBHOOK_TOKEN}` (the contract's example).
  const platformB = nonEmpty(env.PLATFORM_B_WEBHOOK_TOKEN) ?? nonEmpty(env.PLATFORM_B_WEBHOOK_SECRET);
  const variables = platformB === null ? { ...env } : { ...env, PLATFORM_B_WEBHOOK_TOKEN: platformB };
  return {
    port: Number.isInteger(port) && port >= 0 && port < 65536 ? port : DEFAULT_PORT,
    host: nonEmpty(env.HOST) ?? '0.0.0.0',
    configPath: nonEmpty(env.SERVICE_CONFIG) ?? 'config/service.yml',
    databaseUrl: nonEmpty(env.DATABASE_URL),
    dataDir,
    kvstoreUrl: embeddedStore ? embeddedStore.socket : kvstore,
    embeddedStore,
    logLevel: nonEmpty(env.LOG_LEVEL) ?? 'info',
    logFormat: logFormatOf(nonEmpty(env.LOG_FORMAT), stdoutIsTerminal),
    otlpEndpoint: nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT) ?? nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT),
    adminGrant: nonEmpty(env.SERVICE_ADMIN_GRANT),
    secretsKey: nonEmpty(env.SERVICE_SECRETS_KEY),
    auth,
    webhookSecrets: {
      platform_a_secret: nonEmpty(env.PLATFORM_A_WEBHOOK_SECRET),
      platform_b_secret: platformB,
      platform_c_secret: nonEmpty(env.PLATFORM_C_WEBHOOK_SECRET),
      platform_d_secret: nonEmpty(env.PLATFORM_D_WEBHOOK_SECRET),
    },
    variables,
  };
}

function embeddedStoreOf(dataDir: string, server: string | null): EmbeddedStoreEnvironment {
  const dir = resolve(dataDir, 'store');
  let socket = join(dir, 'redis.sock');
  // A deep data directory cannot hold the socket: it then lives in the temp folder, named after it.
  if (socket.length > MAX_SOCKET_PATH) socket = join(tmpdir(), `pipeline-service-${createHash('sha256').update(dir).digest('hex').slice(0, 16)}.sock`);
  return { server: server ?? 'redis-server', dir, socket };
}

/** An explicit LOG_FORMAT wins (an unknown value reads as json, what machines expect); else a terminal gets pretty lines. */
function logFormatOf(value: string | null, stdoutIsTerminal: boolean): 'pretty' | 'json' {
  if (value !== null) return value.trim().toLowerCase() === 'pretty' ? 'pretty' : 'json';
  return stdoutIsTerminal ? 'pretty' : 'json';
}
