import { describe, expect, it } from 'vitest';
import { readEnvironment } from './environment.js';

describe('readEnvironment', () => {
  it('gives the contract defaults for an empty environment', () => {
    const env = readEnvironment({}, false);
    expect(env).toEqual({
      port: 8081,
      host: '0.0.0.0',
      configPath: 'config/service.yml',
      databaseUrl: null,
      dataDir: './data',
      kvstoreUrl: null,
      embeddedStore: null,
      logLevel: 'info',
      logFormat: 'json',
      otlpEndpoint: null,
      adminGrant: null,
      secretsKey: null,
      auth: {},
      webhookSecrets: { platform_a_secret: null, platform_b_secret: null, platform_c_secret: null, platform_d_secret: null },
      variables: {},
    });
  });

  it('writes pretty lines for a terminal unless LOG_FORMAT says otherwise', () => {
    expect(readEnvironment({}, true).logFormat).toBe('pretty');
    expect(readEnvironment({ LOG_FORMAT: 'json' }, true).logFormat).toBe('json');
    expect(readEnvironment({ LOG_FORMAT: 'Pretty' }, false).logFormat).toBe('pretty');
    expect(readEnvironment({ LOG_FORMAT: 'xml' }, true).logFormat).toBe('json');
  });

  it('reads KVSTORE_URL=embedded as a redis-server child on a socket under the data directory', () => {
    const env = readEnvironment({ KVSTORE_URL: 'embedded', SERVICE_DATA_DIR: '/var/svc' });
    expect(env.embeddedStore).toEqual({ server: 'redis-server', dir: '/var/svc/store', socket: '/var/svc/store/redis.sock' });
    expect(env.kvstoreUrl).toBe('/var/svc/store/redis.sock');
    expect(readEnvironment({ KVSTORE_URL: 'embedded', SERVICE_REDIS_SERVER: '/opt/redis/bin/redis-server' }).embeddedStore?.server).toBe('/opt/redis/bin/redis-server');
    // A socket path must fit sun_path: a deep data directory's socket goes to the temp folder.
    const deep = readEnvironment({ KVSTORE_URL: 'embedded', SERVICE_DATA_DIR: `/${'d'.repeat(120)}` });
    expect(deep.embeddedStore!.socket.length).toBeLessThanOrEqual(100);
    expect(deep.embeddedStore!.dir).toBe(`/${'d'.repeat(120)}/store`);
    expect(readEnvironment({ KVSTORE_URL: 'redis://kv:6379/1' }).embeddedStore).toBeNull();
  });

  it('reads the OTLP endpoint that turns tracing on', () => {
    expect(readEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).otlpEndpoint).toBe('http://collector:4318');
    expect(readEnvironment({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }).otlpEndpoint).toBe('http://collector:4318/v1/traces');
  });

  it('reads every variable of the contract', () => {
    const env = readEnvironment({
      PORT: '9090', HOST: '127.0.0.1', SERVICE_CONFIG: '/etc/svc.yml', DATABASE_URL: 'postgres://db/x', SERVICE_DATA_DIR: '/var/svc',
      KVSTORE_URL: 'redis://kv:6379/1', LOG_LEVEL: 'debug', SERVICE_ADMIN_GRANT: 'sub=alice',
      SERVICE_AUTH_AUTHORITY: 'https://idp', SERVICE_AUTH_CLIENT_ID: 'dash',
      PLATFORM_A_WEBHOOK_SECRET: 'a', PLATFORM_B_WEBHOOK_TOKEN: 'b', PLATFORM_C_WEBHOOK_SECRET: 'c', PLATFORM_D_WEBHOOK_SECRET: 'd',
    });
    expect(env).toMatchObject({
      port: 9090, host: '127.0.0.1', configPath: '/etc/svc.yml', databaseUrl: 'postgres://db/x', dataDir: '/var/svc',
      kvstoreUrl: 'redis://kv:6379/1', logLevel: 'debug', adminGrant: 'sub=alice',
      auth: { authority: 'https://idp', client_id: 'dash' },
      webhookSecrets: { platform_a_secret: 'a', platform_b_secret: 'b', platform_c_secret: 'c', platform_d_secret: 'd' },
    });
  });

  it('treats empty and blank values as unset', () => {
    const env = readEnvironment({ DATABASE_URL: '', KVSTORE_URL: '  ', SERVICE_AUTH_AUDIENCE: '', PLATFORM_A_WEBHOOK_SECRET: ' ' });
    expect(env.databaseUrl).toBeNull();
    expect(env.kvstoreUrl).toBeNull();
    expect(env.auth).toEqual({});
    expect(env.webhookSecrets.platform_a_secret).toBeNull();
  });

  it.each(['abc', '-1', '70000', ''])('falls back to port 8081 for PORT=%j', (port) => {
    expect(readEnvironment({ PORT: port }).port).toBe(8081);
  });

  it('accepts PORT=0 (any free port, as tests use)', () => {
    expect(readEnvironment({ PORT: '0' }).port).toBe(0);
  });

  describe('PLATFORM_B_WEBHOOK_SECRET fallback', () => {
    it('is read when PLATFORM_B_WEBHOOK_TOKEN is not set', () => {
      expect(readEnvironment({ PLATFORM_B_WEBHOOK_SECRET: 'fallback' }).webhookSecrets.platform_b_secret).toBe('fallback');
      expect(readEnvironment({ PLATFORM_B_WEBHOOK_TOKEN: '', PLATFORM_B_WEBHOOK_SECRET: 'fallback' }).webhookSecrets.platform_b_secret).toBe('fallback');
    });

    it('loses to PLATFORM_B_WEBHOOK_TOKEN when both are set', () => {
      expect(readEnvironment({ PLATFORM_B_WEBHOOK_TOKEN: 'token', PLATFORM_B_WEBHOOK_SECRET: 'fallback' }).webhookSecrets.platform_b_secret).toBe('token');
    });

    it('also answers a ${PLATFORM_B_WEBHOOK_TOKEN} reference', () => {
      expect(readEnvironment({ PLATFORM_B_WEBHOOK_SECRET: 'fallback' }).variables.PLATFORM_B_WEBHOOK_TOKEN).toBe('fallback');
    });
  });

  it('keeps a copy of the variables, not the caller object', () => {
    const vars: Record<string, string | undefined> = { SHOP_TOKEN: 'x' };
    const env = readEnvironment(vars);
    vars.SHOP_TOKEN = 'changed';
    expect(env.variables.SHOP_TOKEN).toBe('x');
  });
});
